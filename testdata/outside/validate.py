"""Reads a batch of JSON Schemas and instances on stdin and prints, as JSON, what
Python's jsonschema makes of them: the validator class is the one the library picks
for each schema (jsonschema.validators.validator_for), and each schema is first
checked against its dialect's meta-schema.

stdin:  {"schemas": [schema, ...], "cases": [[schemaIndex, instance], ...]}
stdout: {"compile": {"python": [...]}, "verdicts": {"python": [...]},
         "validators": [class name per schema]}
A compile entry is null or the error; a verdict is null (accepted) or the errors.
"""
import json
import sys

import jsonschema
from jsonschema import validators

batch = json.load(sys.stdin)
compiled, errors, names = [], [], []
for schema in batch["schemas"]:
    cls = validators.validator_for(schema)
    names.append(cls.__name__)
    try:
        cls.check_schema(schema)
        compiled.append(cls(schema))
        errors.append(None)
    except jsonschema.SchemaError as e:
        compiled.append(None)
        errors.append(str(e.message))

verdicts = []
for i, instance in batch["cases"]:
    v = compiled[i]
    if v is None:
        verdicts.append("schema did not compile")
        continue
    errs = [e.message for e in v.iter_errors(instance)]
    verdicts.append("; ".join(errs) if errs else None)

json.dump({"compile": {"python": errors}, "verdicts": {"python": verdicts}, "validators": names}, sys.stdout)
