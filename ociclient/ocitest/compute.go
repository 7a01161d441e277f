package ocitest

// computeStore holds the emulated state of this API. Guarded by Server.mu.
type computeStore struct{}

func newComputeStore() *computeStore { return &computeStore{} }

func (s *Server) registerCompute() {}
