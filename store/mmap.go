package store

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"unsafe"
)

// Memory-mapping helpers for the header log and its index (hlog.go). Linux only, like the rest
// of the node's deployment; the syscall package has everything needed, so no new dependency.

// mapFile maps the first size bytes of f, shared, so that the mapping and the file's page cache
// are the same memory: bytes written with pwrite are visible through a read-only mapping as soon
// as the call returns, and stores into a writable mapping are the file's contents.
func mapFile(f *os.File, size uint64, writable bool) ([]byte, error) {
	prot := syscall.PROT_READ
	if writable {
		prot |= syscall.PROT_WRITE
	}
	if size == 0 || size > uint64(maxMapping) {
		return nil, fmt.Errorf("store: map %s: bad size %d", f.Name(), size)
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, int(size), prot, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("store: map %s (%d bytes): %w", f.Name(), size, err)
	}
	return m, nil
}

// maxMapping bounds a single mapping (1 TiB): far beyond any real header log, and small enough
// that every offset computation below stays exact in int arithmetic.
const maxMapping = 1 << 40

// retireMapping detaches m from its file without unmapping the address range: it maps fresh
// anonymous zero pages over it (MAP_FIXED replaces a mapping atomically). A reader that loaded
// the old view just before Close therefore reads zeros, which every lookup treats as "absent" or
// "damaged", instead of faulting on an unmapped page and killing the process. The cost is
// address space, not memory: untouched anonymous pages take no RAM. Only Close retires mappings;
// a node closes its store once, and tests' stores are small.
func retireMapping(m []byte) error {
	if len(m) == 0 {
		return nil
	}
	_, _, errno := syscall.Syscall6(syscall.SYS_MMAP, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)),
		syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|syscall.MAP_FIXED, ^uintptr(0), 0)
	if errno != 0 {
		return fmt.Errorf("store: retire mapping: %w", errno)
	}
	return nil
}

// words views the 8-byte-aligned bytes b as 64-bit words, for atomic loads and stores. Mappings
// are page-aligned and callers pass offsets that are multiples of 8.
func words(b []byte) []uint64 {
	if len(b) < 8 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b)/8)
}

// syncDir fsyncs a directory, making a file created or renamed in it durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("store: sync directory %s: %w", filepath.Base(dir), err)
	}
	return nil
}

// pageSize is the unit of log growth and the size of the index file's header page. 4 KiB is the
// page size on amd64; on systems with larger pages mmap still accepts it (offsets are always 0).
const pageSize = 4096

func roundUpPage(n uint64) uint64 { return (n + pageSize - 1) &^ (pageSize - 1) }
