package qa

import (
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
)

// Scorer judges a model's output against a row's gold answers. Model
// output is hostile: no method panics on any text.
type Scorer interface {
	// Name is the scorer's name with its option: "exact(squad)",
	// "numeric", "numeric(tol=0.01)".
	Name() string
	// Describe says what the scorer does, for `bench list` and the record.
	Describe() string
	// Answer extracts the answer from an output; ok is false when there is
	// none.
	Answer(output string) (string, bool)
	// Key is the normalised answer majority votes count (row may be the
	// zero Row when the question is not known); ok is false when the answer
	// gives no vote.
	Key(row Row, answer string) (string, bool)
	// Score compares an extracted answer with the row's gold answers.
	Score(row Row, answer string) tasks.Score
	// Check reports a gold answer this scorer cannot use (a regex that
	// does not compile, a numeric answer with no number), with the fix.
	Check(row Row) error
}

// Scorer names.
const (
	ScorerExact   = "exact"
	ScorerEMF1    = "em_f1"
	ScorerNumeric = "numeric"
	ScorerChoice  = "choice"
	ScorerRegex   = "regex"
)

// Normalisations of the exact scorer.
const (
	NormNone  = "none"
	NormLower = "lower"
	NormSQuAD = "squad"
)

// ScorerDocs describes every scorer, for `bench list`.
var ScorerDocs = []struct{ Name, Doc string }{
	{ScorerExact, "the answer equals a gold answer after a named normalisation: exact:none (whitespace trimmed), exact:lower (the default: case folded, whitespace collapsed, a final period dropped), exact:squad (HotpotQA/SQuAD's normalize_answer)"},
	{ScorerEMF1, "HotpotQA/SQuAD exact match (correct) and token F1 (metric f1), after the official normalize_answer; the best over the gold answers"},
	{ScorerNumeric, "the last number in the answer (a '#### N' line, else the Answer: line, else the whole output), thousands separators, units and currency dropped, compared with the gold answer's as exact rationals; numeric:TOL (or tolerance/rel_tolerance in the spec) allows an absolute difference"},
	{ScorerChoice, "multiple choice: the answer's letter (A, (B), C.) or a choice's text names a choice, compared with the gold choice (given as its letter or its text)"},
	{ScorerMath, "MATH answers: the last \\boxed{...} (nested braces; \\fbox, a final 'the answer is', then the last one-line inline math or last number standing as a word, recorded as a fallback); math: equal after normalisation (\\left/\\right, \\dfrac, \\text units, degrees, x = prefixes, thousands separators) by value and structure (fractions, radicals, π, powers, tuples, intervals, sets, matrices, ±, equations, expressions at fixed points, inequalities; tasks/mathans); math:strict: the same, a \\boxed{} answer required; math:hendrycks: the original MATH is_equiv string rule"},
	{ScorerDebatePaper, "the multi-agent debate reference's GSM8K rule (eval_gsm.py) as written: the last {number} else the last \\d+\\.?\\d* of the output; no number counts as correct; the gold is the last \\d+\\.?\\d* of the whole worked solution (a thousands separator or minus sign cuts it); docs/debate.md"},
	{ScorerDebateArithmetic, "the multi-agent debate reference's arithmetic rule (gen_math.py): commas read as dots, the last space-separated part Python's float() accepts, compared as floats; docs/debate.md"},
	{ScorerRegex, "the gold answer is an RE2 regular expression the whole answer must match (regex:i, or ignore_case in the spec, ignores case)"},
}

// ScorerOptions are a scorer's settings from a spec or a --scorer suffix.
type ScorerOptions struct {
	Normalize    string
	Tolerance    float64
	RelTolerance float64
	IgnoreCase   bool
}

// NewScorer builds a scorer by name; name may carry one option after a
// colon: exact:squad, numeric:0.01, regex:i. The option overrides opt.
func NewScorer(name string, opt ScorerOptions) (Scorer, error) {
	base, arg, hasArg := strings.Cut(strings.TrimSpace(name), ":")
	switch base {
	case ScorerExact:
		if hasArg {
			opt.Normalize = arg
		}
		switch opt.Normalize {
		case "":
			opt.Normalize = NormLower
		case NormNone, NormLower, NormSQuAD:
		default:
			return nil, fmt.Errorf("scorer exact: unknown normalisation %q (want none, lower or squad, e.g. --scorer exact:squad)", opt.Normalize)
		}
		return exactScorer{norm: opt.Normalize}, nil
	case ScorerNumeric:
		if hasArg {
			tol, err := strconv.ParseFloat(arg, 64)
			if err != nil || tol < 0 {
				return nil, fmt.Errorf("scorer numeric: tolerance %q: want a number at least 0, e.g. --scorer numeric:0.01", arg)
			}
			opt.Tolerance = tol
		}
		return newNumericScorer(opt.Tolerance, opt.RelTolerance), nil
	case ScorerEMF1, ScorerChoice:
		if hasArg {
			return nil, fmt.Errorf("scorer %s takes no option (drop :%s)", base, arg)
		}
		if base == ScorerEMF1 {
			return emF1Scorer{}, nil
		}
		return choiceScorer{}, nil
	case ScorerMath:
		return newMathScorer(arg, hasArg)
	case ScorerDebatePaper, ScorerDebateArithmetic:
		if hasArg {
			return nil, fmt.Errorf("scorer %s takes no option (drop :%s)", base, arg)
		}
		if base == ScorerDebateArithmetic {
			return debateArithScorer{}, nil
		}
		return debatePaperScorer{}, nil
	case ScorerRegex:
		switch {
		case hasArg && arg == "i":
			opt.IgnoreCase = true
		case hasArg:
			return nil, fmt.Errorf("scorer regex: unknown option %q (regex:i ignores case)", arg)
		}
		return &regexScorer{ignoreCase: opt.IgnoreCase}, nil
	}
	var known []string
	for _, d := range ScorerDocs {
		known = append(known, d.Name)
	}
	return nil, fmt.Errorf("unknown scorer %q (known: %s; see bench list)", name, strings.Join(known, ", "))
}

// textAnswer is the answer of a free-text output: the last Finish action
// or "Answer:" line, or a short one-line output as a whole (HotpotQA's
// extraction).
func textAnswer(output string) (string, bool) { return hotpotqa.Answer(output) }

// exactScorer compares normalised texts.
type exactScorer struct{ norm string }

func (s exactScorer) Name() string { return "exact(" + s.norm + ")" }
func (s exactScorer) Describe() string {
	return "the answer equals a gold answer after normalisation " + s.norm
}
func (exactScorer) Answer(output string) (string, bool) { return textAnswer(output) }

func (s exactScorer) normalise(x string) string {
	switch s.norm {
	case NormNone:
		return strings.TrimSpace(x)
	case NormSQuAD:
		return hotpotqa.Normalize(x)
	}
	return lowerNorm(x)
}

// lowerNorm folds case, collapses whitespace and drops final periods.
func lowerNorm(x string) string {
	x = strings.Join(strings.Fields(strings.ToLower(strings.ToValidUTF8(x, "\uFFFD"))), " ")
	return strings.TrimSpace(strings.TrimRight(x, "."))
}

func (s exactScorer) Key(_ Row, answer string) (string, bool) {
	k := s.normalise(answer)
	return k, k != ""
}

func (s exactScorer) Score(row Row, answer string) tasks.Score {
	a := s.normalise(answer)
	for _, g := range row.Answers {
		if a == s.normalise(g) {
			return tasks.Score{Correct: true, Answer: answer}
		}
	}
	return tasks.Score{Answer: answer, Reason: fmt.Sprintf("not %q after normalisation %s", truncate(row.Gold(), maxErrText), s.norm)}
}

func (exactScorer) Check(Row) error { return nil }

// emF1Scorer is HotpotQA's official exact match and F1.
type emF1Scorer struct{}

func (emF1Scorer) Name() string { return ScorerEMF1 }
func (emF1Scorer) Describe() string {
	return "HotpotQA/SQuAD exact match and token F1 after normalize_answer, best over the gold answers"
}
func (emF1Scorer) Answer(output string) (string, bool) { return textAnswer(output) }

func (emF1Scorer) Key(_ Row, answer string) (string, bool) {
	k := hotpotqa.Normalize(answer)
	return k, k != ""
}

func (emF1Scorer) Score(row Row, answer string) tasks.Score {
	em, f1 := false, 0.0
	for _, g := range row.Answers {
		em = em || hotpotqa.ExactMatch(answer, g)
		f, _, _ := hotpotqa.F1(answer, g)
		f1 = max(f1, f)
	}
	sc := tasks.Score{Correct: em, Answer: answer, Metrics: map[string]float64{"em": b2f(em), "f1": f1}}
	if !em {
		sc.Reason = fmt.Sprintf("not an exact match for %q (F1 %.2f)", truncate(row.Gold(), maxErrText), f1)
	}
	return sc
}

func (emF1Scorer) Check(Row) error { return nil }

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// numericScorer compares the last numbers as exact rationals, or within a
// tolerance.
type numericScorer struct {
	tol, rel       float64
	tolRat, relRat *big.Rat
}

func newNumericScorer(tol, rel float64) numericScorer {
	s := numericScorer{tol: tol, rel: rel}
	if tol > 0 {
		s.tolRat = new(big.Rat).SetFloat64(tol)
	}
	if rel > 0 {
		s.relRat = new(big.Rat).SetFloat64(rel)
	}
	return s
}

func (s numericScorer) Name() string {
	var opts []string
	if s.tol > 0 {
		opts = append(opts, "tol="+strconv.FormatFloat(s.tol, 'g', -1, 64))
	}
	if s.rel > 0 {
		opts = append(opts, "rel="+strconv.FormatFloat(s.rel, 'g', -1, 64))
	}
	if len(opts) == 0 {
		return ScorerNumeric
	}
	return ScorerNumeric + "(" + strings.Join(opts, ",") + ")"
}

func (s numericScorer) Describe() string {
	d := "the last number in the answer ('#### N' line, else the Answer: line, else the whole output; thousands separators, units and currency dropped) against the gold answer's"
	if s.tol == 0 && s.rel == 0 {
		return d + ", as exact rationals"
	}
	return d + fmt.Sprintf(", within absolute %g or relative %g", s.tol, s.rel)
}

// maxNumericText bounds the text a number is looked for in: the end of an
// enormous output.
const maxNumericText = 64 << 10

// numberText is where an output's answer number is: the text after the
// last "####", else the answer (Answer: line or Finish action), else a
// "the answer is" sentence, else the whole output.
func numberText(output string) string {
	if len(output) > maxNumericText {
		output = output[len(output)-maxNumericText:]
	}
	if i := strings.LastIndex(output, "####"); i >= 0 {
		rest := output[i+4:]
		if line, _, _ := strings.Cut(rest, "\n"); len(Numbers(line)) > 0 {
			return line
		}
	}
	if a, ok := hotpotqa.ExtractAnswer(output); ok && len(Numbers(a)) > 0 {
		return a
	}
	lower := strings.ToLower(output)
	if i := strings.LastIndex(lower, "answer is"); i >= 0 {
		line, _, _ := strings.Cut(output[i:], "\n")
		if len(Numbers(line)) > 0 {
			return line
		}
	}
	return output
}

// numericAnswer finds the answer number of an output and its text.
func numericAnswer(output string) (*big.Rat, string, bool) {
	text := numberText(output)
	ns := Numbers(text)
	if len(ns) == 0 {
		return nil, "", false
	}
	n := ns[len(ns)-1]
	return n.Value, text[n.Start:n.End], true
}

func (numericScorer) Answer(output string) (string, bool) {
	_, text, ok := numericAnswer(output)
	return text, ok
}

func (numericScorer) Key(_ Row, answer string) (string, bool) {
	v, ok := LastNumber(answer)
	if !ok {
		return "", false
	}
	return ratKey(v), true
}

// Close reports whether a and b are equal, or within the tolerances.
func (s numericScorer) close(a, b *big.Rat) bool {
	if a.Cmp(b) == 0 {
		return true
	}
	d := new(big.Rat).Sub(a, b)
	d.Abs(d)
	if s.tolRat != nil && d.Cmp(s.tolRat) <= 0 {
		return true
	}
	if s.relRat != nil {
		lim := new(big.Rat).Abs(b)
		lim.Mul(lim, s.relRat)
		return d.Cmp(lim) <= 0
	}
	return false
}

func (s numericScorer) Score(row Row, answer string) tasks.Score {
	v, ok := LastNumber(answer)
	if !ok {
		return tasks.Score{Answer: answer, Reason: "no number in the answer"}
	}
	for _, g := range row.Answers {
		if gv, _, ok := numericAnswer(g); ok && s.close(v, gv) {
			return tasks.Score{Correct: true, Answer: answer}
		}
	}
	gold := "?"
	if gv, _, ok := numericAnswer(row.Gold()); ok {
		gold = truncate(ratKey(gv), maxErrText)
	}
	return tasks.Score{Answer: answer, Reason: fmt.Sprintf("%s is not %s", truncate(ratKey(v), maxErrText), gold)}
}

func (numericScorer) Check(row Row) error {
	for _, g := range row.Answers {
		if _, _, ok := numericAnswer(g); !ok {
			return fmt.Errorf("answer %q has no number for the numeric scorer; give a number, or choose another scorer", truncate(g, maxErrText))
		}
	}
	return nil
}

// choiceScorer reads a letter or a choice's text.
type choiceScorer struct{}

func (choiceScorer) Name() string { return ScorerChoice }
func (choiceScorer) Describe() string {
	return "multiple choice: a letter (A, (B), C.) or a choice's text names the choice, compared with the gold choice"
}

func (choiceScorer) Answer(output string) (string, bool) {
	if a, ok := hotpotqa.ExtractAnswer(output); ok {
		return a, true
	}
	// "The answer is (B)." without an Answer line.
	tail := output
	if len(tail) > maxNumericText {
		tail = tail[len(tail)-maxNumericText:]
	}
	if i := strings.LastIndex(strings.ToLower(tail), "answer is"); i >= 0 {
		line, _, _ := strings.Cut(tail[i+len("answer is"):], "\n")
		if a := strings.TrimRight(strings.TrimSpace(line), "."); a != "" {
			return truncate(a, 300), true
		}
	}
	return textAnswer(output)
}

// choiceIndex reads which choice an answer names, -1 when none: a letter
// ("B", "(B)", "B.", "B)", "Option B", "B. its text"), or a choice's
// text (squad-normalised). A bare capital followed by other words ("A red
// car") is a letter only when the words are that choice's text.
func choiceIndex(row Row, answer string) int {
	a := strings.TrimSpace(answer)
	if i := choiceLetter(row, a); i >= 0 {
		return i
	}
	n := hotpotqa.Normalize(a)
	if n == "" {
		return -1
	}
	for i, c := range row.Choices {
		if hotpotqa.Normalize(c) == n {
			return i
		}
	}
	return -1
}

func choiceLetter(row Row, a string) int {
	marked := false // by "option", a bracket or a closing mark
	lower := strings.ToLower(a)
	for _, p := range []string{"option ", "choice "} {
		if strings.HasPrefix(lower, p) {
			a, marked = strings.TrimSpace(a[len(p):]), true
			break
		}
	}
	if strings.HasPrefix(a, "(") || strings.HasPrefix(a, "[") {
		a, marked = a[1:], true
	}
	if a == "" || a[0] < 'A' || a[0] > 'Z' {
		return -1
	}
	i, rest := int(a[0]-'A'), a[1:]
	if rest != "" && strings.ContainsRune(").]:", rune(rest[0])) {
		rest, marked = rest[1:], true
	} else if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return -1 // a word, not a letter
	}
	if len(row.Choices) > 0 && i >= len(row.Choices) {
		return -1
	}
	rest = strings.TrimSpace(rest)
	if rest == "" || marked || (len(row.Choices) > 0 && hotpotqa.ExactMatch(rest, row.Choices[i])) {
		return i
	}
	return -1
}

func (choiceScorer) Key(row Row, answer string) (string, bool) {
	if i := choiceIndex(row, answer); i >= 0 {
		return Letter(i), true
	}
	return "", false
}

func (choiceScorer) Score(row Row, answer string) tasks.Score {
	i := choiceIndex(row, answer)
	if i < 0 {
		return tasks.Score{Answer: answer, Reason: "the answer names no choice"}
	}
	for _, g := range row.Answers {
		if choiceIndex(row, g) == i {
			return tasks.Score{Correct: true, Answer: Letter(i)}
		}
	}
	return tasks.Score{Answer: Letter(i), Reason: fmt.Sprintf("choice %s, not %s", Letter(i), goldLetter(row))}
}

func goldLetter(row Row) string {
	if i := choiceIndex(row, row.Gold()); i >= 0 {
		return Letter(i)
	}
	return "?"
}

func (choiceScorer) Check(row Row) error {
	if len(row.Choices) == 0 {
		return errors.New("no choices for the choice scorer; give the row a choices list, or choose another scorer")
	}
	for _, g := range row.Answers {
		if choiceIndex(row, g) < 0 {
			return fmt.Errorf("answer %q names none of the %d choices; give its letter (A to %s) or its exact text", truncate(g, maxErrText), len(row.Choices), Letter(len(row.Choices)-1))
		}
	}
	return nil
}

// regexScorer matches the answer against gold patterns.
type regexScorer struct {
	ignoreCase bool
	cache      sync.Map // pattern → *regexp.Regexp
}

func (s *regexScorer) Name() string {
	if s.ignoreCase {
		return "regex(i)"
	}
	return ScorerRegex
}

func (s *regexScorer) Describe() string {
	d := "the whole answer matches a gold RE2 regular expression"
	if s.ignoreCase {
		d += ", ignoring case"
	}
	return d
}

func (*regexScorer) Answer(output string) (string, bool) { return textAnswer(output) }

func (*regexScorer) Key(_ Row, answer string) (string, bool) {
	k := lowerNorm(answer)
	return k, k != ""
}

func (s *regexScorer) compile(pattern string) (*regexp.Regexp, error) {
	if re, ok := s.cache.Load(pattern); ok {
		return re.(*regexp.Regexp), nil
	}
	flags := ""
	if s.ignoreCase {
		flags = "(?i)"
	}
	re, err := regexp.Compile(flags + `^(?:` + pattern + `)$`)
	if err != nil {
		return nil, err
	}
	s.cache.Store(pattern, re)
	return re, nil
}

func (s *regexScorer) Score(row Row, answer string) tasks.Score {
	a := strings.TrimSpace(answer)
	for _, g := range row.Answers {
		if re, err := s.compile(g); err == nil && re.MatchString(a) {
			return tasks.Score{Correct: true, Answer: answer}
		}
	}
	return tasks.Score{Answer: answer, Reason: fmt.Sprintf("does not match %q", truncate(row.Gold(), maxErrText))}
}

func (s *regexScorer) Check(row Row) error {
	for _, g := range row.Answers {
		if _, err := s.compile(g); err != nil {
			return fmt.Errorf("answer %q is not an RE2 regular expression (%v); fix the pattern, or choose another scorer", truncate(g, maxErrText), shortErr(err))
		}
	}
	return nil
}

// Scorers lists the scorer names.
func Scorers() []string {
	out := make([]string, len(ScorerDocs))
	for i, d := range ScorerDocs {
		out[i] = d.Name
	}
	return out
}
