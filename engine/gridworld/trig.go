package gridworld

import (
	"math"
	"math/big"
)

// Correctly rounded sine and cosine.
//
// The original uses the C library's sin/cos, which are correctly rounded for the arguments that
// occur; Go's math.Sin/Cos are off by one ulp for about a quarter of them (spec §11.3), which
// moves positions across .5 block boundaries. sinCos evaluates the functions in double-double
// arithmetic (about 106 bits) and rounds once, which yields the correctly rounded result except
// for arguments astronomically close to a rounding midpoint. Integral degree arguments (all the
// discrete action spaces produce) come from a table built with the same routine.

const (
	degToRad = math.Pi / 180 // equals the original's Py_MATH_PI / 180.0 (checked by a test)
	radToDeg = 180 / math.Pi
)

type dd struct{ hi, lo float64 }

func twoSum(a, b float64) (float64, float64) {
	s := a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

func quickTwoSum(a, b float64) (float64, float64) {
	s := a + b
	return s, b - (s - a)
}

func twoProd(a, b float64) (float64, float64) {
	p := a * b
	return p, math.FMA(a, b, -p)
}

func ddAdd(a, b dd) dd {
	s, e := twoSum(a.hi, b.hi)
	t, f := twoSum(a.lo, b.lo)
	e += t
	s, e = quickTwoSum(s, e)
	e += f
	s, e = quickTwoSum(s, e)
	return dd{s, e}
}

func ddMul(a, b dd) dd {
	p, e := twoProd(a.hi, b.hi)
	e += float64(a.hi*b.lo) + float64(a.lo*b.hi)
	p, e = quickTwoSum(p, e)
	return dd{p, e}
}

// oneMinus returns 1 - a for |a| < 1 (Horner steps; 1 is exact so one twoSum suffices).
func oneMinus(a dd) dd {
	s, e := twoSum(1, -a.hi)
	e -= a.lo
	s, e = quickTwoSum(s, e)
	return dd{s, e}
}

func ddNeg(a dd) dd { return dd{-a.hi, -a.lo} }

// ddDivF returns a/b for a float64 b.
func ddDivF(a dd, b float64) dd {
	q1 := a.hi / b
	p, e := twoProd(q1, b)
	r := ddAdd(a, dd{-p, -e})
	q2 := r.hi / b
	p2, e2 := twoProd(q2, b)
	r = ddAdd(r, dd{-p2, -e2})
	q3 := r.hi / b
	s, t := quickTwoSum(q1, q2)
	return ddAdd(dd{s, t}, dd{q3, 0})
}

var (
	pio2 [3]float64 // π/2 split into three float64 parts
	// Horner coefficients: sinC[n] = 1/((2n)(2n+1)), cosC[n] = 1/((2n-1)(2n)).
	sinC, cosC [16]dd
	// twoOverPi is 2/π rounded to float64 (only used to pick the quadrant).
	twoOverPi = 2 / math.Pi
)

const piDigits = "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651"

func init() {
	pi, _, err := big.ParseFloat(piDigits, 10, 400, big.ToNearestEven)
	if err != nil {
		panic(err)
	}
	rest := new(big.Float).SetPrec(400).Quo(pi, big.NewFloat(2))
	for i := range pio2 {
		f, _ := rest.Float64()
		pio2[i] = f
		rest.Sub(rest, new(big.Float).SetPrec(400).SetFloat64(f))
	}
	for n := 1; n < len(sinC); n++ {
		sinC[n] = ddDivF(dd{1, 0}, float64((2*n)*(2*n+1)))
		cosC[n] = ddDivF(dd{1, 0}, float64((2*n-1)*(2*n)))
	}
	for d := -tableDeg; d <= tableDeg; d++ {
		s, c := sinCosDD(float64(d) * degToRad)
		sinTab[d+tableDeg] = s
		cosTab[d+tableDeg] = c
	}
}

// sinCosDD returns the correctly rounded sin(x) and cos(x) of the float64 x.
func sinCosDD(x float64) (float64, float64) {
	if x == 0 {
		return x, 1
	}
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e6 {
		return math.Sin(x), math.Cos(x)
	}
	s, c := sinCosFull(x)
	return s.hi + s.lo, c.hi + c.lo
}

// sinCosFull returns sin(x) and cos(x) in double-double (|x| <= 1e6).
func sinCosFull(x float64) (dd, dd) {
	k := math.RoundToEven(x * twoOverPi)
	// r = x - k·π/2 in double-double.
	p1, e1 := twoProd(k, pio2[0])
	t, te := twoSum(x, -p1)
	r := dd{t, te}
	r = ddAdd(r, dd{-e1, 0})
	p2, e2 := twoProd(k, pio2[1])
	r = ddAdd(r, dd{-p2, -e2})
	r = ddAdd(r, dd{-float64(k * pio2[2]), 0})
	r2 := ddMul(r, r)
	// sin r = r·(1 - r²/(2·3)·(1 - r²/(4·5)·(1 - ...)))
	s := dd{1, 0}
	for n := 14; n >= 1; n-- {
		s = oneMinus(ddMul(ddMul(r2, sinC[n]), s))
	}
	s = ddMul(r, s)
	c := dd{1, 0}
	for n := 15; n >= 1; n-- {
		c = oneMinus(ddMul(ddMul(r2, cosC[n]), c))
	}
	switch int64(k) & 3 {
	case 0:
		return s, c
	case 1:
		return c, ddNeg(s)
	case 2:
		return ddNeg(s), ddNeg(c)
	default:
		return ddNeg(c), s
	}
}

func ddMulF(a dd, b float64) dd {
	p, e := twoProd(a.hi, b)
	e += float64(a.lo * b)
	p, e = quickTwoSum(p, e)
	return dd{p, e}
}

// atan2CR returns the correctly rounded atan2(y, x): math.Atan2 (within an ulp) refined by one
// Newton step evaluated in double-double, θ = a0 + (y·cos a0 − x·sin a0)/(x·cos a0 + y·sin a0).
func atan2CR(y, x float64) float64 {
	a0 := math.Atan2(y, x)
	if y == 0 || x == 0 || math.IsNaN(a0) || math.IsInf(y, 0) || math.IsInf(x, 0) {
		return a0
	}
	s, c := sinCosFull(a0)
	num := ddAdd(ddMulF(c, y), ddNeg(ddMulF(s, x)))
	den := float64(x*c.hi) + float64(y*s.hi)
	d := num.hi / den
	r := ddAdd(dd{a0, 0}, dd{d, float64(num.lo / den)})
	return r.hi + r.lo
}

const tableDeg = 1080

var sinTab, cosTab [2*tableDeg + 1]float64

// sinCosDeg returns the correctly rounded sin and cos of rad(a) = a·(π/180), where the product
// is rounded to float64 first, exactly as math.radians does.
func sinCosDeg(a float64) (float64, float64) {
	if a == math.Trunc(a) && a >= -tableDeg && a <= tableDeg {
		i := int(a) + tableDeg
		return sinTab[i], cosTab[i]
	}
	return sinCosDD(float64(a * degToRad))
}

// strafeAngle returns deg(atan2(s0, s1)) (spec §5.3, s0 first).
func strafeAngle(s0, s1 float64) float64 {
	// The nine integral combinations all give exact multiples of 45° in the original.
	if s0 == math.Trunc(s0) && s1 == math.Trunc(s1) && math.Abs(s0) <= 1 && math.Abs(s1) <= 1 {
		if s0 == 0 && math.Signbit(s0) && s1 < 0 {
			return -180 // atan2(-0, -1) = -π
		}
		return strafeTab[int(s0)+1][int(s1)+1]
	}
	return float64(atan2CR(s0, s1) * radToDeg)
}

// strafeTab[s0+1][s1+1] = degrees(atan2(s0, s1)) as the original computes it.
var strafeTab = [3][3]float64{
	{-135, -90, -45},
	{180, 0, 0},
	{135, 90, 45},
}
