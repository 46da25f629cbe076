package qa

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// An arithmetic question is an expression of integers with + - * asked
// as the whole question ("Question: 3+4*5-6") or as "the result of
// 3+4*5-6?" (the debate reference's arithmetic task).
var (
	arithExpr     = `(\d+(?:[+*-]\d+){2,})`
	arithQuestion = regexp.MustCompile(`(?m)^Question: ` + arithExpr + `\s*$|result of ` + arithExpr + `\?`)
	arithToken    = regexp.MustCompile(`\d+|[+*-]`)
)

// ArithResponder answers arithmetic questions in one user message: with
// probability Skill it respects precedence, otherwise it works left to
// right; with probability Slip the result is off by one to three.
type ArithResponder struct{}

func (ArithResponder) Respond(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	if len(p.Messages) != 1 || p.Messages[0].Role != "user" {
		return llm.Choice{}, false
	}
	m := arithQuestion.FindAllStringSubmatch(p.Messages[0].Content, -1)
	if len(m) == 0 {
		return llm.Choice{}, false
	}
	expr := m[len(m)-1][1] + m[len(m)-1][2]
	toks := arithToken.FindAllString(expr, -1)
	nums := []int64{}
	var ops []string
	for i, t := range toks {
		if i%2 == 1 {
			ops = append(ops, t)
			continue
		}
		v, err := strconv.ParseInt(t, 10, 64)
		if err != nil || v > 1e6 {
			return llm.Choice{}, false // beyond mental arithmetic
		}
		nums = append(nums, v)
	}
	var v int64
	how := "multiplying first"
	if rng.Float64() < params.Skill {
		v = precedence(nums, ops)
	} else {
		v, how = leftToRight(nums, ops), "working left to right"
	}
	if rng.Float64() < params.Slip {
		v += int64(1+rng.IntN(3)) * int64(1-2*rng.IntN(2))
	}
	return llm.Choice{Content: fmt.Sprintf("Computing %s by %s gives %d.\nAnswer: %d", expr, how, v, v)}, true
}

// precedence evaluates with * before + and -.
func precedence(nums []int64, ops []string) int64 {
	terms := []int64{nums[0]}
	signs := []int64{1}
	for i, o := range ops {
		switch o {
		case "*":
			terms[len(terms)-1] *= nums[i+1]
		case "+":
			terms, signs = append(terms, nums[i+1]), append(signs, 1)
		default:
			terms, signs = append(terms, nums[i+1]), append(signs, -1)
		}
	}
	var v int64
	for i, t := range terms {
		v += signs[i] * t
	}
	return v
}

// leftToRight evaluates ignoring precedence: a common slip.
func leftToRight(nums []int64, ops []string) int64 {
	v := nums[0]
	for i, o := range ops {
		switch o {
		case "*":
			v *= nums[i+1]
		case "+":
			v += nums[i+1]
		default:
			v -= nums[i+1]
		}
	}
	return v
}
