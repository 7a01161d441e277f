package ocitest

// identityStore holds the emulated state of this API. Guarded by Server.mu.
type identityStore struct{}

func newIdentityStore() *identityStore { return &identityStore{} }

func (s *Server) registerIdentity() {}
