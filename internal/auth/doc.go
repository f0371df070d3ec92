// Package auth says who is calling over HTTP and what they may call. It knows no MCP
// server: it gives the HTTP transport token verifiers in the shape of the go-sdk's
// auth.TokenVerifier (for auth.RequireBearerToken), the protected-resource metadata
// document (RFC 9728) that MCP clients read for OAuth discovery, and Policy.Allow,
// which a server calls per request with the tool's group and annotations. Over stdio
// none of this runs: the local user owns the process.
//
// # Principals
//
// A verified request carries a *Principal in the TokenInfo's Extra (FromTokenInfo
// reads it back, so a tool handler finds it in req.Extra.TokenInfo): a name, the
// grants it holds (contracts/grants.cue says what each allows), the workspace its
// images live in, and its limits. TokenInfo.UserID is "token:NAME" or
// "jwt:ISSUER#SUBJECT", so the SDK's session hijacking check never mistakes a token
// user for a JWT subject of the same name.
//
// # The token file
//
// Bearer tokens live in a JSON file, one record per token:
//
//	{"tokens": [
//	  {"name": "alice", "sha256": "9f86d0…", "grants": ["edit"], "workspace": "alice"},
//	  {"name": "ci", "sha256": "2c26b4…", "grants": ["read", "validate"], "workspace": "team",
//	   "limits": {"requests_per_minute": 600, "burst": 50, "concurrent_calls": 2, "max_input_bytes": 1048576}}
//	]}
//
// Add makes a token of 32 bytes from crypto/rand, returns it once ("drk_" and 43
// base64url characters; the prefix lets secret scanners find a leaked one) and keeps
// only its SHA-256. No slow hash (bcrypt, argon2) is needed: those make guessing a
// low-entropy password expensive, but a token is 256 random bits, so reversing its
// hash by search costs 2^255 tries whatever the hash's speed; a fast hash keeps
// verification a map lookup per request instead of a deliberate 100 ms of CPU, which
// on a small machine would itself be a denial of service. The lookup compares hashes,
// so its timing says nothing about the token.
//
// The file is written atomically with mode 0600. Load refuses a file that group or
// others may write (whoever can write it can grant themselves admin) and warns when
// others may read it: it holds no usable secret, but it tells who holds which grant.
// A running server follows the file: Verify looks at its stamp at most once a second
// and rereads it when it changed, so `darkroom token add` or `token remove` in
// another process takes effect without a restart; a change that does not load (a
// bad hand edit, a mode others may write) keeps the tokens read before, with a
// warning. Add and Remove reread the file before they write it, so two processes
// adding in turn do not drop each other's tokens.
//
// # JWTs
//
// JWTVerifier checks RS256 and ES256 tokens against the keys of a JWKS file: the
// signature with the key named by kid (no other algorithm, so neither "none" nor an
// HMAC keyed with a public key gets in), iss equal to the configured issuer, aud
// containing the resource (oauthex.MatchesResource), exp required, nbf honoured, both
// with a small leeway. The "scope" claim (space separated) or an "scp" list gives the
// grants; scopes that are not grants (openid, email) are ignored. A JWT principal's
// workspace is named from a hash of its issuer and subject: a #Name, and no two
// subjects share one.
//
// Nothing here logs a token: errors name what failed (expired, wrong audience), never
// the token, and the token file holds only hashes.
package auth
