package ocitest

// vcnStore holds the emulated state of this API. Guarded by Server.mu.
type vcnStore struct{}

func newVCNStore() *vcnStore { return &vcnStore{} }

func (s *Server) registerVCN() {}
