package qa

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/tasks"
)

// ScorerDebatePaper is the multi-agent debate reference's GSM8K rule
// (composable-models/llm_multiagent_debate, gsm/eval_gsm.py,
// compute_accuracy), reproduced with its quirks; see docs/debate.md.
const ScorerDebatePaper = "debate-paper"

// debateNone is the answer key of an output the paper's parser finds no
// number in (Python's None): it is counted in the vote like any answer,
// and scores correct.
const debateNone = "None"

var (
	// Python's \d matches any Unicode decimal digit; so does \p{Nd}.
	debateNumber = regexp.MustCompile(`\p{Nd}+\.?\p{Nd}*`)
	debateBraced = regexp.MustCompile(`\{([0-9.,$]*)\}`)
)

// debatePaperScorer: the prediction is the last {…} of digits, dots,
// commas and dollars with everything but digits and dots removed (the
// last such that is not empty), else the last \d+\.?\d* of the output;
// none counts as correct; the gold is the last \d+\.?\d* of the whole
// worked solution.
type debatePaperScorer struct{}

func (debatePaperScorer) Name() string { return ScorerDebatePaper }
func (debatePaperScorer) Describe() string {
	return "the multi-agent debate reference's eval_gsm.py as written: the last {number} of the output, else its last \\d+\\.?\\d*; an output with no number counts as correct; gold: the last \\d+\\.?\\d* of the whole solution text (so #### 1,450,000 reads as 000 and a minus sign is dropped); compared as floats"
}

// Answer is parse_answer, else solve_math_problems; "None" when both find
// nothing (an answer all the same: the paper counts it). Braces that all
// empty out give "", as parse_answer does: no fallback, and a float()
// that would raise.
func (debatePaperScorer) Answer(output string) (string, bool) {
	ms := debateBraced.FindAllStringSubmatch(output, -1)
	for i := len(ms) - 1; i >= 0; i-- {
		s := strings.Map(func(r rune) rune {
			if r == '.' || r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, ms[i][1])
		if s != "" {
			return s, true
		}
	}
	if len(ms) > 0 {
		// parse_answer returns the last (empty) string it tried, not
		// None, so solve_math_problems is not asked.
		return "", true
	}
	if m := debateNumber.FindAllString(output, -1); len(m) > 0 {
		return m[len(m)-1], true
	}
	return debateNone, true
}

// Key is the raw answer string: the paper's majority counts strings.
func (debatePaperScorer) Key(_ Row, answer string) (string, bool) { return answer, true }

func (debatePaperScorer) Score(row Row, answer string) tasks.Score {
	gold, ok := debateGold(row)
	if !ok {
		return tasks.Score{Answer: answer, Reason: "the gold solution has no number"}
	}
	if answer == debateNone {
		return tasks.Score{Correct: true, Answer: debateNone, Reason: "no number in the output: the paper rule counts it correct"}
	}
	g, _ := pyFloat(gold)
	p, ok := pyFloat(answer)
	if !ok {
		// Python's float() would raise here and stop eval_gsm.py.
		return tasks.Score{Answer: answer, Reason: "not a number Python's float() reads (the reference would stop with ValueError)"}
	}
	if g == p {
		return tasks.Score{Correct: true, Answer: answer}
	}
	return tasks.Score{Answer: answer}
}

func (debatePaperScorer) Check(row Row) error {
	if _, ok := debateGold(row); !ok {
		return errors.New("the gold solution has no number for the debate-paper rule")
	}
	return nil
}

// debateGold is solve_math_problems over the whole gold solution.
func debateGold(row Row) (string, bool) {
	if len(row.Answers) == 0 {
		return "", false
	}
	m := debateNumber.FindAllString(row.Answers[0], -1)
	if len(m) == 0 {
		return "", false
	}
	return m[len(m)-1], true
}

// pyFloat is Python's float() over the strings the paper's parsers
// return (decimal digits, any script, and dots): one dot at most, a digit
// somewhere; too large a number is infinity, as in Python.
func pyFloat(s string) (float64, bool) {
	var b strings.Builder
	digits := false
	for _, r := range s {
		switch {
		case r == '.':
			b.WriteByte('.')
		default:
			d, ok := digitValue(r)
			if !ok {
				return 0, false
			}
			b.WriteByte(byte('0' + d))
			digits = true
		}
	}
	if !digits || strings.Count(b.String(), ".") > 1 {
		return 0, false
	}
	f, err := strconv.ParseFloat(b.String(), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, !math.IsNaN(f)
}

// ScorerDebateArithmetic is the multi-agent debate reference's rule for
// its arithmetic task (math/gen_math.py), reproduced; see docs/debate.md.
const ScorerDebateArithmetic = "debate-arithmetic"

// debateArithScorer: commas become dots, the output is split at spaces,
// and the answer is the last part Python's float() reads; the vote counts
// equal floats alike; the gold is compared as a float.
type debateArithScorer struct{}

func (debateArithScorer) Name() string { return ScorerDebateArithmetic }
func (debateArithScorer) Describe() string {
	return "the multi-agent debate reference's gen_math.py rule: commas read as dots, the last space-separated part Python's float() accepts is the answer (none: the agent abstains), compared as floats"
}

func (debateArithScorer) Answer(output string) (string, bool) {
	parts := strings.Split(strings.ReplaceAll(output, ",", "."), " ")
	for i := len(parts) - 1; i >= 0; i-- {
		if v, ok := pyFloatLiteral(parts[i]); ok {
			if math.IsNaN(v) {
				// NaN equals nothing, not even itself: it would never
				// win a vote it shares, so it abstains here.
				return "", false
			}
			return strconv.FormatFloat(v+0, 'g', -1, 64), true // -0 and 0 vote alike, as they compare
		}
	}
	return "", false
}

func (debateArithScorer) Key(_ Row, answer string) (string, bool) { return answer, answer != "" }

func (debateArithScorer) Score(row Row, answer string) tasks.Score {
	p, ok := pyFloatLiteral(answer)
	if !ok || len(row.Answers) == 0 {
		return tasks.Score{Answer: answer, Reason: "no answer"}
	}
	g, _ := pyFloatLiteral(row.Answers[0])
	return tasks.Score{Correct: p == g, Answer: answer}
}

func (debateArithScorer) Check(row Row) error {
	if len(row.Answers) == 0 {
		return errors.New("no gold answer")
	}
	if _, ok := pyFloatLiteral(row.Answers[0]); !ok {
		return fmt.Errorf("gold %q is not a number for the debate-arithmetic rule", row.Answers[0])
	}
	return nil
}

// pyFloatLiteral is Python's float(str): surrounding whitespace, a sign,
// decimal digits of any script with single underscores between digits, a
// fraction, an exponent; or inf, infinity, nan in any case.
func pyFloatLiteral(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	sign := ""
	if s != "" && (s[0] == '+' || s[0] == '-') {
		sign, s = s[:1], s[1:]
	}
	switch strings.ToLower(s) {
	case "inf", "infinity":
		v, err := strconv.ParseFloat(sign+"Inf", 64)
		return v, err == nil
	case "nan":
		return math.NaN(), true
	}
	var b strings.Builder
	b.WriteString(sign)
	digits := func(rs []rune, i int) (int, bool) { // a digit part from i: digits, single _ between
		start := i
		for i < len(rs) {
			if d, ok := digitValue(rs[i]); ok {
				b.WriteByte(byte('0' + d))
				i++
				continue
			}
			if rs[i] == '_' && i > start && i+1 < len(rs) {
				if _, ok := digitValue(rs[i+1]); ok {
					i++
					continue
				}
			}
			break
		}
		return i, i > start
	}
	rs := []rune(s)
	i, intPart := digits(rs, 0)
	frac := false
	if i < len(rs) && rs[i] == '.' {
		b.WriteByte('.')
		i, frac = digits(rs, i+1)
	}
	if !intPart && !frac {
		return 0, false
	}
	if i < len(rs) && (rs[i] == 'e' || rs[i] == 'E') {
		b.WriteByte('e')
		i++
		if i < len(rs) && (rs[i] == '+' || rs[i] == '-') {
			b.WriteRune(rs[i])
			i++
		}
		var exp bool
		if i, exp = digits(rs, i); !exp {
			return 0, false
		}
	}
	if i != len(rs) {
		return 0, false
	}
	v, err := strconv.ParseFloat(b.String(), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return v, true
}
