package reading

import "encoding/json"

// viewProgram draws a program item's episodes (a program on a task of
// episodes records them as react does, beside its runs) as their
// conversation; a program's answer to a question has nothing to draw.
func viewProgram(detail []byte) ItemView {
	var ep ReActEpisodes
	if json.Unmarshal(detail, &ep) == nil && len(ep.Trials) > 0 {
		c := ep.conversation()
		return ItemView{Conversation: &c}
	}
	return ItemView{}
}
