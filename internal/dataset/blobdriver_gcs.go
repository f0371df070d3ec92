//go:build !darkroom_no_gcs

package dataset

// gs:// — Google Cloud Storage. Credentials: application default credentials
// (GOOGLE_APPLICATION_CREDENTIALS, workload identity, the metadata server).
// Left out by -tags darkroom_no_gcs (with Azure's, about 33 MB of the binary).
import _ "gocloud.dev/blob/gcsblob"
