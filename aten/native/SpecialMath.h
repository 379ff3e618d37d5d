#pragma once
// Scalar special functions in double precision, for ember.special's kernels
// (SpecialFunctions.cpp) and their gradients. The C++17 library supplies the
// Bessel functions of real order and the Riemann zeta function; what it
// lacks is written here from the classical expansions (recurrences,
// asymptotic and continued-fraction forms), each noted where it is defined.

#include <cstdint>

namespace ember::native::special {

double digamma(double x);
// n-th derivative of digamma (n >= 1): (-1)^(n+1) n! zeta(n + 1, x).
double polygamma(int64_t n, double x);
// The Hurwitz zeta function sum_k (k + q)^-s.
double zeta(double s, double q);
// Regularized lower and upper incomplete gamma functions P(a, x), Q(a, x).
double gammainc(double a, double x);
double gammaincc(double a, double x);
// d x / d a of a standard gamma sample x of shape a, at a fixed quantile: the
// pathwise (implicitly reparameterized) gradient of gamma sampling.
double standard_gamma_sample_derivative(double a, double x);
// exp(x^2) erfc(x).
double erfcx(double x);
// The standard normal CDF, its log, and its inverse.
double ndtr(double x);
double log_ndtr(double x);
double ndtri(double p);
// Bessel functions of the first and second kind, orders 0 and 1.
double bessel_j0(double x);
double bessel_j1(double x);
double bessel_y0(double x);
double bessel_y1(double x);
// Modified Bessel functions; the "e" forms are scaled by exp(-|x|) (I) and
// exp(x) (K), finite where the unscaled ones overflow or underflow.
double bessel_i0(double x);
double bessel_i1(double x);
double bessel_i0e(double x);
double bessel_i1e(double x);
float bessel_i0e(float x);  // in single precision, for float inputs
float bessel_i1e(float x);
double bessel_k0(double x);
double bessel_k1(double x);
double bessel_k0e(double x);
double bessel_k1e(double x);
double spherical_bessel_j0(double x);
double airy_ai(double x);
// Orthogonal polynomials of degree n at x (0 for n < 0), as torch.special.
enum class Polynomial { ChebyshevT, ChebyshevU, ChebyshevV, ChebyshevW, HermiteH, HermiteHe, LaguerreL, LegendreP };
double polynomial(Polynomial kind, double x, int64_t n);

}  // namespace ember::native::special
