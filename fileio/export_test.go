package fileio

// Config returns the configuration the Service runs with.
func (s *Service) Config() Config { return s.cfg }
