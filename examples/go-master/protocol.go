package main

import "encoding/json"

// Operation is what the searcher asks of the master (docs/embedding.md, "Operations").
type Operation struct {
	Type      string                     `json:"type"` // create, validate_after, close, shutdown
	RequestID string                     `json:"request_id"`
	TrialSeed uint32                     `json:"trial_seed"`
	Hparams   map[string]json.RawMessage `json:"hparams"`
	Length    uint64                     `json:"length"`
	Cancel    bool                       `json:"cancel"`
	Failure   bool                       `json:"failure"`
}

// Event is what the master tells the searcher (docs/embedding.md, "Events").
type Event struct {
	Event     string   `json:"event"`
	RequestID string   `json:"request_id,omitempty"`
	Metric    *float64 `json:"metric,omitempty"`
	Length    uint64   `json:"length,omitempty"`
	Reason    string   `json:"reason,omitempty"`
}
