//go:build !unix

package connguard

// DescriptorLimit is 0 where the descriptor limit is not read: the connection limits keep their
// fixed defaults.
func DescriptorLimit() int { return 0 }
