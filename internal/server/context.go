package server

import (
	"context"
	"fmt"

	"github.com/darkroom-mcp/darkroom/internal/contextfile"
)

// The context tools: read_context, log_vocabulary_gap and the proposals to update
// the tastes, a brief or notes, which the user confirms. The files and their rules
// are internal/contextfile's; these handlers decode, call it and shape the data.

func readContext(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[imageArgs](args)
	if err != nil {
		return nil, "", err
	}
	ws, err := s.RequireWorkspace()
	if err != nil {
		return nil, "", err
	}
	c, err := contextfile.Read(ws, a.ImageID)
	if err != nil {
		return nil, "", err
	}
	log := make([]historyLogEntry, len(c.Log))
	for i, e := range c.Log {
		log[i] = viewLogEntry(e)
	}
	data := map[string]any{
		"image_id": a.ImageID, "tastes": c.Tastes, "brief": c.Brief, "notes": c.Notes,
		"recent_log": log, "recent_gaps": nonNil(c.Gaps), "pending": nonNil(c.Pending),
	}
	return data, fmt.Sprintf("context of %s: tastes %d chars, brief %d, notes %d; %d recent operations, %d gaps, %d pending proposals",
		a.ImageID, len(c.Tastes), len(c.Brief), len(c.Notes), len(log), len(c.Gaps), len(c.Pending)), nil
}

type gapArgs struct {
	ImageID     string  `json:"image_id"`
	Description string  `json:"description"`
	Workaround  *string `json:"workaround"`
	Desired     *string `json:"desired"`
}

func logVocabularyGap(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[gapArgs](args)
	if err != nil {
		return nil, "", err
	}
	ws, err := s.RequireWorkspace()
	if err != nil {
		return nil, "", err
	}
	g, count, err := contextfile.LogGap(ws, a.ImageID, a.Description, a.Workaround, a.Desired)
	if err != nil {
		return nil, "", err
	}
	return map[string]any{"gap": g, "count": count},
		fmt.Sprintf("logged vocabulary gap %d for %s at %s", count, a.ImageID, abbrev(g.SnapshotHash)), nil
}

// proposalData is #ProposalData.
type proposalData struct {
	Proposal   contextfile.Proposal `json:"proposal"`
	Superseded *string              `json:"superseded"`
}

type tasteArgs struct {
	Content string  `json:"content"`
	Reason  *string `json:"reason"`
}

func proposeTasteUpdate(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[tasteArgs](args)
	if err != nil {
		return nil, "", err
	}
	ws, err := s.RequireWorkspace()
	if err != nil {
		return nil, "", err
	}
	p, sup, err := contextfile.ProposeTastes(ws, a.Content, a.Reason)
	if err != nil {
		return nil, "", err
	}
	data := proposalData{Proposal: p, Superseded: sup}
	return data, describeProposal(data), nil
}

type notesArgs struct {
	ImageID string  `json:"image_id"`
	Section string  `json:"section"`
	Content string  `json:"content"`
	Reason  *string `json:"reason"`
}

func proposeNotesUpdate(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[notesArgs](args)
	if err != nil {
		return nil, "", err
	}
	ws, err := s.RequireWorkspace()
	if err != nil {
		return nil, "", err
	}
	p, sup, err := contextfile.ProposeNotes(ws, a.ImageID, a.Section, a.Content, a.Reason)
	if err != nil {
		return nil, "", err
	}
	data := proposalData{Proposal: p, Superseded: sup}
	return data, describeProposal(data), nil
}

func describeProposal(data proposalData) string {
	p := data.Proposal
	what := "the tastes"
	if p.ImageID != nil {
		what = fmt.Sprintf("the %s of %s", p.Target, *p.ImageID)
	}
	s := fmt.Sprintf("proposal %s to replace %s (%d chars); ask the user, then confirm it", p.ID, what, len(p.Content))
	if data.Superseded != nil {
		s += "; it supersedes " + *data.Superseded
	}
	return s
}

type confirmArgs struct {
	ProposalID string `json:"proposal_id"`
}

// confirmedData is #ConfirmData (fields in the order its goldens print them).
type confirmedData struct {
	Content string  `json:"content"`
	ImageID *string `json:"image_id"`
	Target  string  `json:"target"`
}

func confirmTasteUpdate(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[confirmArgs](args)
	if err != nil {
		return nil, "", err
	}
	ws, err := s.RequireWorkspace()
	if err != nil {
		return nil, "", err
	}
	p, err := contextfile.Confirm(ws, a.ProposalID, "tastes")
	if err != nil {
		return nil, "", err
	}
	return confirmedData{Target: p.Target, ImageID: p.ImageID, Content: p.Content},
		fmt.Sprintf("tastes updated from proposal %s (%d chars)", p.ID, len(p.Content)), nil
}

func confirmNotesUpdate(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	a, err := decodeArgs[confirmArgs](args)
	if err != nil {
		return nil, "", err
	}
	ws, err := s.RequireWorkspace()
	if err != nil {
		return nil, "", err
	}
	p, err := contextfile.Confirm(ws, a.ProposalID, "notes", "brief")
	if err != nil {
		return nil, "", err
	}
	return confirmedData{Target: p.Target, ImageID: p.ImageID, Content: p.Content},
		fmt.Sprintf("%s of %s updated from proposal %s (%d chars)", p.Target, *p.ImageID, p.ID, len(p.Content)), nil
}
