// Command render writes the captured Python-runtime sessions in the two Go
// runtime spellings: adk-go up to v2.1 (untagged structs: PascalCase at the
// top level, genai's camelCase tags inside Content) and adk-go v2.2 (JSON
// tags: camelCase throughout). The Go runtime writes no header_update events,
// so those are left out.
//
//	go run . ../../kagent-captured ..
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/genai"
)

// llmResponse mirrors adk-go's model.LLMResponse, embedded in its Event.
type llmResponse struct {
	Content       *genai.Content
	UsageMetadata *genai.GenerateContentResponseUsageMetadata
	Partial       bool
	TurnComplete  bool
	ErrorCode     string
	ErrorMessage  string
	FinishReason  genai.FinishReason
}

// eventActions mirrors adk-go's session.EventActions.
type eventActions struct {
	StateDelta        map[string]any
	SkipSummarization bool
	TransferToAgent   string
	Escalate          bool
	EndOfAgent        bool
}

// untaggedEvent is adk-go v2.1's session.Event: no JSON tags.
type untaggedEvent struct {
	llmResponse
	ID                 string
	Timestamp          time.Time
	InvocationID       string
	Branch             string
	Author             string
	Actions            eventActions
	LongRunningToolIDs []string
}

// taggedEvent is adk-go v2.2's session.Event, with camelCase JSON tags.
type taggedEvent struct {
	Content            *genai.Content                              `json:"content,omitempty"`
	UsageMetadata      *genai.GenerateContentResponseUsageMetadata `json:"usageMetadata,omitempty"`
	Partial            bool                                        `json:"partial,omitempty"`
	TurnComplete       bool                                        `json:"turnComplete,omitempty"`
	ErrorCode          string                                      `json:"errorCode,omitempty"`
	ErrorMessage       string                                      `json:"errorMessage,omitempty"`
	FinishReason       genai.FinishReason                          `json:"finishReason,omitempty"`
	ID                 string                                      `json:"id"`
	Timestamp          time.Time                                   `json:"timestamp"`
	InvocationID       string                                      `json:"invocationId"`
	Branch             string                                      `json:"branch,omitempty"`
	Author             string                                      `json:"author"`
	Actions            taggedActions                               `json:"actions"`
	LongRunningToolIDs []string                                    `json:"longRunningToolIds,omitempty"`
}

type taggedActions struct {
	StateDelta map[string]any `json:"stateDelta,omitempty"`
	EndOfAgent bool           `json:"endOfAgent,omitempty"`
}

// pythonEvent is the subset of the Python runtime's dump that carries over.
type pythonEvent struct {
	ID                 string   `json:"id"`
	InvocationID       string   `json:"invocation_id"`
	Author             string   `json:"author"`
	Timestamp          float64  `json:"timestamp"`
	Partial            *bool    `json:"partial"`
	TurnComplete       *bool    `json:"turn_complete"`
	ErrorCode          *string  `json:"error_code"`
	ErrorMessage       *string  `json:"error_message"`
	FinishReason       *string  `json:"finish_reason"`
	Branch             *string  `json:"branch"`
	LongRunningToolIDs []string `json:"long_running_tool_ids"`
	Content            *struct {
		Role  string `json:"role"`
		Parts []struct {
			Text         *string `json:"text"`
			Thought      *bool   `json:"thought"`
			FunctionCall *struct {
				ID   string         `json:"id"`
				Name string         `json:"name"`
				Args map[string]any `json:"args"`
			} `json:"function_call"`
			FunctionResponse *struct {
				ID       string         `json:"id"`
				Name     string         `json:"name"`
				Response map[string]any `json:"response"`
			} `json:"function_response"`
		} `json:"parts"`
	} `json:"content"`
	UsageMetadata *struct {
		Prompt     int32 `json:"prompt_token_count"`
		Candidates int32 `json:"candidates_token_count"`
		Total      int32 `json:"total_token_count"`
	} `json:"usage_metadata"`
	Actions struct {
		StateDelta map[string]any `json:"state_delta"`
		EndOfAgent *bool          `json:"end_of_agent"`
	} `json:"actions"`
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func content(e pythonEvent) *genai.Content {
	if e.Content == nil {
		return nil
	}
	out := &genai.Content{Role: e.Content.Role}
	for _, p := range e.Content.Parts {
		part := &genai.Part{Text: deref(p.Text), Thought: deref(p.Thought)}
		if c := p.FunctionCall; c != nil {
			part.FunctionCall = &genai.FunctionCall{ID: c.ID, Name: c.Name, Args: c.Args}
		}
		if r := p.FunctionResponse; r != nil {
			part.FunctionResponse = &genai.FunctionResponse{ID: r.ID, Name: r.Name, Response: r.Response}
		}
		out.Parts = append(out.Parts, part)
	}
	return out
}

func usage(e pythonEvent) *genai.GenerateContentResponseUsageMetadata {
	if e.UsageMetadata == nil {
		return nil
	}
	return &genai.GenerateContentResponseUsageMetadata{
		PromptTokenCount:     e.UsageMetadata.Prompt,
		CandidatesTokenCount: e.UsageMetadata.Candidates,
		TotalTokenCount:      e.UsageMetadata.Total,
	}
}

func timestamp(seconds float64) time.Time {
	whole := int64(seconds)
	return time.Unix(whole, int64((seconds-float64(whole))*1e9)).UTC()
}

func render(e pythonEvent) (untagged, tagged []byte, err error) {
	u := untaggedEvent{
		llmResponse: llmResponse{
			Content:       content(e),
			UsageMetadata: usage(e),
			Partial:       deref(e.Partial),
			TurnComplete:  deref(e.TurnComplete),
			ErrorCode:     deref(e.ErrorCode),
			ErrorMessage:  deref(e.ErrorMessage),
			FinishReason:  genai.FinishReason(deref(e.FinishReason)),
		},
		ID:                 e.ID,
		Timestamp:          timestamp(e.Timestamp),
		InvocationID:       e.InvocationID,
		Branch:             deref(e.Branch),
		Author:             e.Author,
		Actions:            eventActions{StateDelta: e.Actions.StateDelta, EndOfAgent: deref(e.Actions.EndOfAgent)},
		LongRunningToolIDs: e.LongRunningToolIDs,
	}
	t := taggedEvent{
		Content: u.Content, UsageMetadata: u.UsageMetadata, Partial: u.Partial,
		TurnComplete: u.TurnComplete, ErrorCode: u.ErrorCode, ErrorMessage: u.ErrorMessage,
		FinishReason: u.FinishReason, ID: u.ID, Timestamp: u.Timestamp, InvocationID: u.InvocationID,
		Branch: u.Branch, Author: u.Author, LongRunningToolIDs: u.LongRunningToolIDs,
		Actions: taggedActions{StateDelta: e.Actions.StateDelta, EndOfAgent: u.Actions.EndOfAgent},
	}
	if untagged, err = json.Marshal(u); err != nil {
		return nil, nil, err
	}
	tagged, err = json.Marshal(t)
	return untagged, tagged, err
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: render CAPTURED_DIR OUT_DIR")
		os.Exit(2)
	}
	files, err := filepath.Glob(filepath.Join(os.Args[1], "*.jsonl"))
	if err != nil || len(files) == 0 {
		fmt.Fprintln(os.Stderr, "no captured sessions found")
		os.Exit(2)
	}
	for _, dir := range []string{"pascal", "camel"} {
		if err := os.MkdirAll(filepath.Join(os.Args[2], dir), 0o755); err != nil {
			panic(err)
		}
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			panic(err)
		}
		var pascal, camel bytes.Buffer
		scanner := bufio.NewScanner(bytes.NewReader(data))
		scanner.Buffer(make([]byte, 1<<20), 16<<20)
		for scanner.Scan() {
			line := strings.TrimSpace(scanner.Text())
			if line == "" {
				continue
			}
			var e pythonEvent
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				panic(fmt.Errorf("%s: %w", file, err))
			}
			if e.InvocationID == "header_update" {
				continue
			}
			u, t, err := render(e)
			if err != nil {
				panic(err)
			}
			pascal.Write(append(u, '\n'))
			camel.Write(append(t, '\n'))
		}
		name := filepath.Base(file)
		for dir, buf := range map[string]*bytes.Buffer{"pascal": &pascal, "camel": &camel} {
			if err := os.WriteFile(filepath.Join(os.Args[2], dir, name), buf.Bytes(), 0o644); err != nil {
				panic(err)
			}
		}
	}
}
