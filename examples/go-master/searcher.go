package main

// Searcher wraps the C ABI (hpsearch/hpsearch.h). Events go in and answers come back as JSON
// text in the drive protocol's shapes; the typed layer in protocol.go reads them.

// #cgo pkg-config: hpsearch
// #include <stdlib.h>
// #include <hpsearch/hpsearch.h>
import "C"

import (
	"errors"
	"runtime"
	"unsafe"
)

// Searcher is one search. Not safe for concurrent use: keep it in one goroutine (distinct
// Searchers may run in parallel).
type Searcher struct {
	handle *C.hpsearch_searcher
}

// NewSearcher builds a searcher from an experiment config (YAML or JSON text). A nil seed
// takes the config's reproducibility.experiment_seed, else 0.
func NewSearcher(config, source string, seed *uint32) (*Searcher, error) {
	cconfig := C.CString(config)
	defer C.free(unsafe.Pointer(cconfig))
	csource := C.CString(source)
	defer C.free(unsafe.Pointer(csource))
	var cseed *C.uint32_t
	if seed != nil {
		value := C.uint32_t(*seed)
		cseed = &value
	}
	var cerror *C.char
	handle := C.hpsearch_searcher_new(cconfig, csource, cseed, &cerror)
	if handle == nil {
		message := C.GoString(cerror)
		C.hpsearch_string_free(cerror)
		return nil, errors.New(message)
	}
	s := &Searcher{handle: handle}
	runtime.SetFinalizer(s, (*Searcher).Close)
	return s, nil
}

// Close frees the searcher; calling it again does nothing.
func (s *Searcher) Close() {
	if s.handle != nil {
		C.hpsearch_searcher_free(s.handle)
		s.handle = nil
	}
}

// Feed answers one protocol line. A refused line returns its {"error": ...} answer and an
// error with the same message; the searcher is unchanged then.
func (s *Searcher) Feed(line string) (string, error) {
	cline := C.CString(line)
	defer C.free(unsafe.Pointer(cline))
	var answer *C.char
	status := C.hpsearch_searcher_feed(s.handle, cline, &answer)
	text := ""
	if answer != nil {
		text = C.GoString(answer)
	}
	if status != C.HPSEARCH_OK {
		return text, errors.New(C.GoString(C.hpsearch_searcher_last_error(s.handle)))
	}
	return text, nil
}

// Progress is the fraction of the search done, in [0, 1].
func (s *Searcher) Progress() float64 {
	return float64(C.hpsearch_searcher_progress(s.handle))
}

// Snapshot is the whole state as JSON, for Restore after a restart.
func (s *Searcher) Snapshot() (string, error) {
	var snapshot *C.char
	if C.hpsearch_searcher_snapshot(s.handle, &snapshot) != C.HPSEARCH_OK {
		return "", errors.New(C.GoString(C.hpsearch_searcher_last_error(s.handle)))
	}
	return C.GoString(snapshot), nil
}

// Restore replaces the state with a snapshot of a searcher of the same config.
func (s *Searcher) Restore(snapshot string) error {
	csnapshot := C.CString(snapshot)
	defer C.free(unsafe.Pointer(csnapshot))
	if C.hpsearch_searcher_restore(s.handle, csnapshot) != C.HPSEARCH_OK {
		return errors.New(C.GoString(C.hpsearch_searcher_last_error(s.handle)))
	}
	return nil
}
