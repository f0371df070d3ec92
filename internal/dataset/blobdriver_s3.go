//go:build !darkroom_no_s3

package dataset

// s3:// — AWS S3 and S3-compatible stores. Credentials: AWS's environment
// variables, shared config and profile, web identity (EKS) and instance roles.
// Left out by -tags darkroom_no_s3 (it adds about 16 MB to the binary).
import _ "gocloud.dev/blob/s3blob"
