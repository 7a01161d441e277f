package ocitest

// nlbStore holds the emulated state of this API. Guarded by Server.mu.
type nlbStore struct{}

func newNLBStore() *nlbStore { return &nlbStore{} }

func (s *Server) registerNLB() {}
