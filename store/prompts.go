package store

import (
	"context"
	"fmt"
)

// PutPrompt keeps a prompt template's text under its content hash, so a
// run's recorded hashes can be read back as the exact prompts it used.
func (s *Store) PutPrompt(ctx context.Context, hash, name, text string) error {
	if _, err := s.exec(ctx, s.db, qPromptPut, hash, name, text); err != nil {
		return fmt.Errorf("store prompt %s: %w", name, err)
	}
	// The templates are the compression dictionary of requests.
	s.codec.promptStored(hash)
	return nil
}

// Prompt returns the text stored under a hash.
func (s *Store) Prompt(ctx context.Context, hash string) (string, error) {
	var text string
	if err := s.db.QueryRowContext(ctx, `SELECT text FROM prompts WHERE hash = ?`, hash).Scan(&text); err != nil {
		return "", fmt.Errorf("prompt %s: %w", hash, err)
	}
	return text, nil
}
