package assure

import (
	"errors"
	"math"
)

var (
	errNoBracket   = errors.New("root not bracketed")
	errNoConverged = errors.New("root finding did not converge")
)

// brent finds a zero of f in [a, b], where f(a) and f(b) differ in sign,
// to within tol, by Brent's method (R. P. Brent, "An algorithm with
// guaranteed convergence for finding a zero of a function", 1971; the
// reference seed 001 cites): inverse quadratic interpolation or secant
// steps when they stay inside the bracket and shrink it fast enough,
// bisection otherwise. It converges whenever bisection would.
func brent(f func(float64) float64, a, b, tol float64, maxIter int) (float64, error) {
	fa, fb := f(a), f(b)
	switch {
	case fa == 0:
		return a, nil
	case fb == 0:
		return b, nil
	case (fa > 0) == (fb > 0):
		return 0, errNoBracket
	}
	c, fc := a, fa
	d := b - a
	e := d
	for range maxIter {
		if (fb > 0) == (fc > 0) { // keep the root between b and c
			c, fc = a, fa
			d = b - a
			e = d
		}
		if math.Abs(fc) < math.Abs(fb) { // b is the best guess so far
			a, b, c = b, c, b
			fa, fb, fc = fb, fc, fb
		}
		tol1 := 2*epsilon*math.Abs(b) + tol/2
		xm := (c - b) / 2
		if math.Abs(xm) <= tol1 || fb == 0 {
			return b, nil
		}
		if math.Abs(e) >= tol1 && math.Abs(fa) > math.Abs(fb) {
			d, e = interpolate(a, b, c, fa, fb, fc, xm, tol1, d, e)
		} else {
			d, e = xm, xm
		}
		a, fa = b, fb
		if math.Abs(d) > tol1 {
			b += d
		} else {
			b += math.Copysign(tol1, xm)
		}
		fb = f(b)
	}
	return b, errNoConverged
}

// epsilon is the float64 machine epsilon.
const epsilon = 0x1p-52

// interpolate proposes Brent's interpolation step (inverse quadratic when
// a, b, c differ, else secant) and returns the new step and previous step;
// it falls back to bisection when the step is not acceptable.
func interpolate(a, b, c, fa, fb, fc, xm, tol1, d, e float64) (float64, float64) {
	s := fb / fa
	var p, q float64
	if a == c {
		p = 2 * xm * s
		q = 1 - s
	} else {
		q = fa / fc
		r := fb / fc
		p = s * (2*xm*q*(q-r) - (b-a)*(r-1))
		q = (q - 1) * (r - 1) * (s - 1)
	}
	if p > 0 {
		q = -q
	}
	p = math.Abs(p)
	if 2*p < math.Min(3*xm*q-math.Abs(tol1*q), math.Abs(e*q)) {
		return p / q, d
	}
	return xm, xm
}
