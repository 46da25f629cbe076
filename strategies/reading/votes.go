package reading

import "encoding/json"

// VoteCount is one answer's share of a vote.
type VoteCount struct {
	Key   string `json:"key"`
	Count int    `json:"count"`
}

// VoteResult is the outcome of a majority vote over outputs.
type VoteResult struct {
	Key     string      `json:"key"`    // the winning answer key ("" if no output gave a vote)
	Winner  int         `json:"winner"` // index of the first output with the winning key, -1 if none
	Counts  []VoteCount `json:"counts"` // every key, most votes first, ties in order of first appearance
	Abstain int         `json:"abstain"`
	// Keys is each output's vote key, nil where it abstains, so anyone can
	// recompute the vote on a subset (bench report --by k, bench export).
	Keys []*string `json:"keys,omitempty"`
}

// VotedDetail is what cotsc items store, and pal items in its shape: the samples shape with
// the vote (ReadSamples reads it for --by k). A pal sample's program,
// status and value are not read: the programs are drawn with the item's
// executions.
type VotedDetail struct {
	Vote    VoteResult `json:"vote"`
	Samples []Sample   `json:"samples"`
}

// viewVote draws a cotsc or pal item's vote and the samples (for pal the
// executed answers) behind it.
func viewVote(detail []byte) ItemView {
	var d VotedDetail
	if json.Unmarshal(detail, &d) != nil || len(d.Samples) == 0 {
		return ItemView{}
	}
	return ItemView{Votes: &Votes{Vote: d.Vote, Samples: d.Samples}}
}
