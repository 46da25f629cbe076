package game24

import (
	"context"
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"sync"

	"github.com/reasonbench/reasonbench/tasks"
)

// Tool names of the Game of 24 toolbox.
const (
	ToolAdd      = "add"
	ToolSubtract = "subtract"
	ToolMultiply = "multiply"
	ToolDivide   = "divide"
	ToolFinish   = "finish"
)

// PairArgs are the arguments of the arithmetic tools. Numbers are text so
// that fractions ("8/3") can be written exactly.
type PairArgs struct {
	A string `json:"a" desc:"a number on the board: an integer such as 4, or a fraction such as 8/3"`
	B string `json:"b" desc:"another number on the board"`
}

// FinishArgs are the arguments of finish.
type FinishArgs struct {
	Expression string `json:"expression" desc:"the final expression, using each input number exactly once, e.g. (10 - 4) * (5 - 1)"`
}

// toolBoard is the numbers of one trajectory.
type toolBoard struct {
	mu   sync.Mutex
	nums []*big.Rat
}

// Tools returns exact arithmetic over a board that starts with the
// puzzle's numbers: add, subtract, multiply and divide take two numbers off
// the board (refusing numbers that are not on it, and division by zero) and
// put the exact result back, and finish ends the trajectory with the output
// "Answer: <expression> = 24", scored by Check. The observation of an
// arithmetic step is a step line "4 * 5 = 20 (left: 6 10 20)". finish only
// refuses an expression that does not parse; whether it is right is for
// Score to say.
func (*Task) Tools(inst tasks.Instance) ([]tasks.Tool, error) {
	nums := numbersOf(inst)
	if len(nums) == 0 {
		return nil, fmt.Errorf("game24: instance %d has no numbers", inst.Index)
	}
	b := &toolBoard{nums: Rats(nums)}
	arithmetic := func(name string, op byte, verb string) tasks.Tool {
		return tasks.NewTool(name, fmt.Sprintf("%s: take the numbers a and b off the board and put a %c b back.", verb, op), false,
			func(_ context.Context, a PairArgs) (tasks.ToolResult, error) {
				return b.apply(op, a), nil
			})
	}
	return []tasks.Tool{
		arithmetic(ToolAdd, '+', "Add"),
		arithmetic(ToolSubtract, '-', "Subtract"),
		arithmetic(ToolMultiply, '*', "Multiply"),
		arithmetic(ToolDivide, '/', "Divide"),
		tasks.NewTool(ToolFinish, "Give the final expression and end the task.", true,
			func(_ context.Context, a FinishArgs) (tasks.ToolResult, error) {
				expr, _, _ := strings.Cut(a.Expression, "=")
				expr = strings.TrimSpace(strings.Join(strings.Fields(expr), " "))
				if expr == "" {
					return toolRefused("finish needs an expression, e.g. (10 - 4) * (5 - 1)."), nil
				}
				if len(expr) > MaxStepLen {
					return toolRefused(fmt.Sprintf("the expression is too long (%d bytes; max %d).", len(expr), MaxStepLen)), nil
				}
				if _, err := ParseExpr(expr); err != nil {
					return toolRefused(fmt.Sprintf("cannot read the expression: %v.", err)), nil
				}
				return tasks.ToolResult{Final: true, Output: "Answer: " + expr + " = 24", Observation: "Episode finished."}, nil
			}),
	}, nil
}

func toolRefused(msg string) tasks.ToolResult {
	return tasks.ToolResult{Refused: true, Observation: "Error: " + msg}
}

// numberSyntax is what the tools accept as a number: an optionally signed
// integer or decimal, or a fraction of integers. Exponents are refused (big
// exponents would make big.Rat.SetString slow).
var numberSyntax = regexp.MustCompile(`^[-−]?\d{1,40}(\.\d{1,40}|/\d{1,40})?$`)

// parseNumber reads a number as the model wrote it, returning its value and
// the digits after a decimal point.
func parseToolNumber(s string) (*big.Rat, int, error) {
	t := strings.Join(strings.Fields(s), "")
	t = strings.Trim(t, "()")
	if !numberSyntax.MatchString(t) {
		return nil, 0, fmt.Errorf("%q is not a number", toolTruncate(s, 40))
	}
	t = strings.Replace(t, "−", "-", 1)
	r, ok := new(big.Rat).SetString(t)
	if !ok {
		return nil, 0, fmt.Errorf("%q is not a number", toolTruncate(s, 40))
	}
	dec := 0
	if _, frac, ok := strings.Cut(t, "."); ok {
		dec = len(frac)
	}
	return r, dec, nil
}

func toolTruncate(s string, n int) string {
	s = strings.ToValidUTF8(s, "")
	if len(s) <= n {
		return s
	}
	for n > 0 && !toolRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func toolRuneStart(c byte) bool { return c&0xC0 != 0x80 }

// apply carries out a op b on the board.
func (b *toolBoard) apply(op byte, args PairArgs) tasks.ToolResult {
	x, xd, err := parseToolNumber(args.A)
	if err != nil {
		return toolRefused(err.Error())
	}
	y, yd, err := parseToolNumber(args.B)
	if err != nil {
		return toolRefused(err.Error())
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	i := findOperand(b.nums, x, xd, -1)
	if i < 0 {
		return toolRefused(fmt.Sprintf("%s is not on the board [%s].", WrittenNumber(x, xd), FormatState(b.nums)))
	}
	j := findOperand(b.nums, y, yd, i)
	if j < 0 {
		return toolRefused(fmt.Sprintf("%s is not on the board [%s] (besides the %s used as a).", WrittenNumber(y, yd), FormatState(b.nums), FormatNumber(b.nums[i])))
	}
	res, err := Arith(op, b.nums[i], b.nums[j])
	if err != nil {
		return toolRefused(err.Error() + ".")
	}
	m := Move{I: i, J: j, A: b.nums[i], B: b.nums[j], Op: op, Result: res, Left: append(without(b.nums, i, j), res)}
	b.nums = m.Left
	return tasks.ToolResult{Observation: m.StepLine()}
}

var _ tasks.Toolbox = (*Task)(nil)
