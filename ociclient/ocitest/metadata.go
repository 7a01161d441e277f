package ocitest

// metadataStore holds the emulated state of this API. Guarded by Server.mu.
type metadataStore struct{}

func newMetadataStore() *metadataStore { return &metadataStore{} }

func (s *Server) registerMetadata() {}
