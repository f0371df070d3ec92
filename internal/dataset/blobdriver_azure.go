//go:build !darkroom_no_azure

package dataset

// azblob:// — Azure Blob Storage. Credentials: AZURE_STORAGE_ACCOUNT with a key or
// a SAS token, or the default Azure credential (workload identity, managed
// identity, the CLI's login). Left out by -tags darkroom_no_azure.
import _ "gocloud.dev/blob/azureblob"
