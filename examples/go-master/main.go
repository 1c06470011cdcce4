// go-master: a Go program that embeds hpsearch through its C ABI and plays a whole search as
// an experiment master would: it creates the trials the searcher asks for, "trains" them (a
// closed-form loss stands in for training), reports validations and closes, and halfway
// through restarts from a snapshot, as a master does after a crash.
//
// usage: go-master CONFIG SEED [EVENTS_OUT ANSWERS_OUT]
// With the two paths it writes every line it fed and every answer it got, so a test can replay
// them through `searcher-sim drive` and compare.
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
)

// loss stands in for training: best near learning_rate 1e-3 with 4 layers, lower when longer.
func loss(hparams map[string]json.RawMessage, length uint64) float64 {
	var rate float64
	var layers float64
	_ = json.Unmarshal(hparams["learning_rate"], &rate)
	_ = json.Unmarshal(hparams["layers"], &layers)
	return math.Pow(math.Log10(rate)+3, 2) + math.Abs(layers-4)/8 + 10/math.Sqrt(float64(length))
}

// recorder keeps the lines fed and the answers given when asked to.
type recorder struct {
	events, answers *os.File
}

func (r recorder) feed(s *Searcher, line string) (string, error) {
	answer, err := s.Feed(line)
	if r.events != nil {
		fmt.Fprintln(r.events, line)
		fmt.Fprintln(r.answers, answer)
	}
	return answer, err
}

func (r recorder) handle(s *Searcher, event Event) []Operation {
	line, err := json.Marshal(event)
	check(err)
	text, err := r.feed(s, string(line))
	check(err)
	var answer struct {
		Operations []Operation `json:"operations"`
	}
	check(json.Unmarshal([]byte(text), &answer))
	return answer.Operations
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "go-master:", err)
		os.Exit(1)
	}
}

func main() {
	if len(os.Args) != 3 && len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: go-master CONFIG SEED [EVENTS_OUT ANSWERS_OUT]")
		os.Exit(2)
	}
	config, err := os.ReadFile(os.Args[1])
	check(err)
	seed64, err := strconv.ParseUint(os.Args[2], 10, 32)
	check(err)
	seed := uint32(seed64)
	var rec recorder
	if len(os.Args) == 5 {
		rec.events, err = os.Create(os.Args[3])
		check(err)
		defer rec.events.Close()
		rec.answers, err = os.Create(os.Args[4])
		check(err)
		defer rec.answers.Close()
	}

	searcher, err := NewSearcher(string(config), os.Args[1], &seed)
	check(err)
	hparams := map[string]map[string]json.RawMessage{}
	best, bestTrial := math.Inf(1), ""
	events := 0
	queue := rec.handle(searcher, Event{Event: "initial_operations"})
	for len(queue) > 0 {
		op := queue[0]
		queue = queue[1:]
		var event Event
		switch op.Type {
		case "create":
			hparams[op.RequestID] = op.Hparams
			event = Event{Event: "trial_created", RequestID: op.RequestID}
		case "validate_after":
			metric := loss(hparams[op.RequestID], op.Length)
			if metric < best {
				best, bestTrial = metric, op.RequestID
			}
			event = Event{Event: "validation_completed", RequestID: op.RequestID, Metric: &metric,
				Length: op.Length}
		case "close":
			event = Event{Event: "trial_closed", RequestID: op.RequestID}
		case "shutdown":
			continue
		}
		queue = append(queue, rec.handle(searcher, event)...)
		events++
		if events == 50 {
			// A master that restarts: a new searcher from the same config, restored.
			snapshot, err := searcher.Snapshot()
			check(err)
			searcher.Close()
			searcher, err = NewSearcher(string(config), os.Args[1], &seed)
			check(err)
			check(searcher.Restore(snapshot))
			fmt.Printf("restarted from a %d-byte snapshot after %d events, progress %.3f\n",
				len(snapshot), events, searcher.Progress())
		}
	}
	// A refused event is an error value, never a crash.
	_, err = searcher.Feed(`{"event":"trial_closed","request_id":"not-an-id"}`)
	if err == nil {
		check(fmt.Errorf("a malformed request id was accepted"))
	}
	fmt.Printf("refused as expected: %v\n", err)
	fmt.Printf("search done: %d trials, %d events, progress %g, best loss %.4f (trial %s)\n",
		len(hparams), events, searcher.Progress(), best, bestTrial)
	searcher.Close()
}
