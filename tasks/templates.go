package tasks

import "github.com/reasonbench/reasonbench/prompts"

// TemplateFolders is implemented by tasks whose prompt templates are not
// all under their own name: file tasks use the generic qa/ templates, GSM8K
// its own few-shot io and cot and qa/ for the rest. A task without it uses
// the folder of its name ("game24/cot").
type TemplateFolders interface {
	// TemplateFolders lists the folders a template is looked up in, in
	// order; the first that has it wins.
	TemplateFolders() []string
}

// TemplateName is the library name of the task's template called name:
// "<folder>/<name>" for the first of the task's folders whose template lib
// has, else in the last folder (so a missing template is reported there).
func TemplateName(lib *prompts.Library, t Task, name string) string {
	folders := []string{t.Name()}
	if tf, ok := t.(TemplateFolders); ok {
		folders = tf.TemplateFolders()
	}
	for _, f := range folders {
		if _, ok := lib.Text(f + "/" + name); ok {
			return f + "/" + name
		}
	}
	return folders[len(folders)-1] + "/" + name
}
