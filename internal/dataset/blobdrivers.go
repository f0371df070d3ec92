package dataset

// The drivers of the bucket URLs a dataset may name (BucketSchemes). Each takes its
// credentials from its cloud's standard chain: AWS's environment variables, shared
// config and profile, web identity (EKS) and instance roles; Google's application
// default credentials (GOOGLE_APPLICATION_CREDENTIALS, workload identity, the
// metadata server); Azure's AZURE_STORAGE_ACCOUNT with a key, a SAS token or the
// default Azure credential (workload identity, managed identity, the CLI's login).
import (
	_ "gocloud.dev/blob/azureblob"
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/s3blob"
)
