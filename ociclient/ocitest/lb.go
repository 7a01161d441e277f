package ocitest

// lbStore holds the emulated state of this API. Guarded by Server.mu.
type lbStore struct{}

func newLBStore() *lbStore { return &lbStore{} }

func (s *Server) registerLB() {}
