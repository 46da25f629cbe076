package mathans

import "math/cmplx"

// applyFn evaluates a named function on the complex plane (principal
// branches); exact arguments become floats.
func applyFn(name string, a num) (num, error) {
	x := a.complex()
	var y complex128
	switch name {
	case "\\sin":
		y = cmplx.Sin(x)
	case "\\cos":
		y = cmplx.Cos(x)
	case "\\tan":
		y = cmplx.Tan(x)
	case "\\sec", "\\csc", "\\cot":
		var d complex128
		switch name {
		case "\\sec":
			d = cmplx.Cos(x)
		case "\\csc":
			d = cmplx.Sin(x)
		default:
			d = cmplx.Tan(x)
		}
		if cmplx.Abs(d) < 1e-300 {
			return num{}, errDomain
		}
		y = 1 / d
	case "\\arcsin":
		y = cmplx.Asin(x)
	case "\\arccos":
		y = cmplx.Acos(x)
	case "\\arctan":
		y = cmplx.Atan(x)
	case "\\sinh":
		y = cmplx.Sinh(x)
	case "\\cosh":
		y = cmplx.Cosh(x)
	case "\\tanh":
		y = cmplx.Tanh(x)
	case "\\ln", "\\log":
		// \log without a base is the natural logarithm here; MATH answers
		// with a base write \log_b.
		if x == 0 {
			return num{}, errDomain
		}
		y = cmplx.Log(x)
	case "\\exp":
		y = cmplx.Exp(x)
	default:
		return num{}, errParse
	}
	return check(floatNum(y))
}
