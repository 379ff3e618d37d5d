#include <aten/native/SpecialMath.h>

#include <cmath>
#include <exception>
#include <limits>

namespace ember::native::special {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = std::numeric_limits<double>::epsilon();

// The standard library's special functions report bad arguments by throwing;
// a kernel must not throw from its loop, so a throw becomes NaN.
template <typename F>
double guarded(F&& f) {
  try {
    return f();
  } catch (const std::exception&) {
    return kNaN;
  }
}

// K_nu(x) exp(x) for large x.
double scaled_k_asymptotic(double nu, double x) {
  const double mu = 4 * nu * nu;
  double term = 1, sum = 1;
  for (int k = 1; k <= 30; ++k) {
    term *= (mu - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8 * x);
    sum += term;
    if (std::abs(term) < kEps * std::abs(sum)) break;
  }
  return sum * std::sqrt(kPi / (2 * x));
}

// log Q(a, x) for x >= a + 1 by its continued fraction (modified Lentz).
double log_gammaincc_fraction(double a, double x) {
  constexpr double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int i = 1; i < 10000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::abs(delta - 1) < kEps) break;
  }
  return a * std::log(x) - x - std::lgamma(a) + std::log(h);
}

// log P(a, x) for x < a + 1 by its power series.
double log_gammainc_series(double a, double x) {
  double term = 1 / a, sum = term, ap = a;
  for (int n = 1; n < 100000; ++n) {
    ap += 1;
    term *= x / ap;
    sum += term;
    if (std::abs(term) < std::abs(sum) * kEps) break;
  }
  return std::log(sum) + a * std::log(x) - x - std::lgamma(a);
}

double gammaincc_fraction(double a, double x) { return std::exp(log_gammaincc_fraction(a, x)); }
double gammainc_series(double a, double x) { return std::exp(log_gammainc_series(a, x)); }

}  // namespace

// Reflection below 0, the recurrence psi(x) = psi(x + 1) - 1/x up to 10,
// then the asymptotic series in Bernoulli numbers.
double digamma(double x) {
  if (std::isnan(x)) return x;
  if (x == 0) return std::signbit(x) ? kInf : -kInf;
  if (x < 0) {
    if (x == std::floor(x)) return kNaN;
    return digamma(1 - x) - kPi / std::tan(kPi * x);
  }
  if (std::isinf(x)) return x;
  double result = 0;
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  const double i2 = 1 / (x * x);
  const double series =
      i2 * (1.0 / 12 - i2 * (1.0 / 120 - i2 * (1.0 / 252 - i2 * (1.0 / 240 - i2 * (1.0 / 132 - i2 * (691.0 / 32760 - i2 / 12))))));
  return result + std::log(x) - 0.5 / x - series;
}

// Euler-Maclaurin: the first terms summed, the tail as its integral plus
// Bernoulli-number corrections.
double zeta(double s, double q) {
  if (std::isnan(s) || std::isnan(q)) return kNaN;
  if (s == 1) return kInf;
  if (s < 1) return kNaN;
  if (q <= 0) {
    if (q == std::floor(q)) return kInf;
    if (s != std::floor(s)) return kNaN;  // q^-s is not real
  }
  if (std::isinf(s)) return q == 1 ? 1 : q > 1 ? 0 : kInf;
  static constexpr double kCorrections[] = {1.0 / 12,
                                            -1.0 / 720,
                                            1.0 / 30240,
                                            -1.0 / 1209600,
                                            1.0 / 47900160,
                                            -691.0 / 1307674368000.0,
                                            1.0 / 74724249600.0,
                                            -3617.0 / 10670622842880000.0,
                                            43867.0 / 5109094217170944000.0,
                                            -174611.0 / 802857662698291200000.0};
  double sum = 0, a = q;
  // For large s the terms fall off so fast that shifting a all the way up to
  // s (billions of steps for polygamma(n) with a large n) is never needed:
  // terms with a <= -2 are below 2^-64 of the one with |a| < 1, and once past
  // a = 1 the rest sum to less than 0.6 of the last term.
  const bool steep = s > 64;
  if (steep && q < -2) a = q + std::ceil(-2 - q);
  const double shift_to = std::max(10.0, s);
  while (a < shift_to) {
    const double term = std::pow(a, -s);
    sum += term;
    a += 1;
    if (steep && a > 2 && std::abs(term) <= 0.5 * kEps * std::abs(sum)) return sum;
  }
  sum += std::pow(a, 1 - s) / (s - 1) + 0.5 * std::pow(a, -s);
  double factor = s * std::pow(a, -s - 1);
  for (int j = 0; j < 10; ++j) {
    const double term = kCorrections[j] * factor;
    sum += term;
    if (std::abs(term) < kEps * std::abs(sum)) break;
    factor *= (s + 2 * j + 1) * (s + 2 * j + 2) / (a * a);
  }
  return sum;
}

double polygamma(int64_t n, double x) {
  if (n == 0) return digamma(x);
  if (n < 0) return kNaN;
  const double sign = n % 2 == 1 ? 1.0 : -1.0;
  return sign * std::exp(std::lgamma(static_cast<double>(n) + 1)) * zeta(static_cast<double>(n) + 1, x);
}

double gammainc(double a, double x) {
  if (std::isnan(a) || std::isnan(x) || a < 0 || x < 0) return kNaN;
  if (a == 0) return x > 0 ? 1.0 : kNaN;
  if (x == 0) return 0;
  if (std::isinf(a)) return std::isinf(x) ? kNaN : 0.0;
  if (std::isinf(x)) return 1;
  return x < a + 1 ? gammainc_series(a, x) : 1 - gammaincc_fraction(a, x);
}

double gammaincc(double a, double x) {
  if (std::isnan(a) || std::isnan(x) || a < 0 || x < 0) return kNaN;
  if (a == 0) return x > 0 ? 0.0 : kNaN;
  if (x == 0) return 1;
  if (std::isinf(a)) return std::isinf(x) ? kNaN : 1.0;
  if (std::isinf(x)) return 0;
  return x < a + 1 ? 1 - gammainc_series(a, x) : gammaincc_fraction(a, x);
}

// Implicit differentiation of P(a, x) = u at fixed u: dx/da = -(dP/da) / p(x)
// with p the gamma density. dP/da is a central difference of log P (or of
// log Q = log(1 - P) above the mean, where Q is the one computed directly),
// so both stay accurate in relative terms far into either tail. Past a =
// 1e4 the series get long, and the Wilson-Hilferty form
// x = a (1 - 1/(9a) + z / (3 sqrt(a)))^3 is differentiated at fixed z instead.
double standard_gamma_sample_derivative(double a, double x) {
  if (!(a > 0) || std::isinf(a) || std::isnan(x) || std::isinf(x)) return kNaN;
  if (x <= 0) return 0;
  if (a > 1e4) {
    const double root = std::sqrt(a);
    const double t = std::cbrt(x / a);
    const double z = (t - 1 + 1 / (9 * a)) * 3 * root;
    return t * t * t + 3 * a * t * t * (1 / (9 * a * a) - z / (6 * a * root));
  }
  const bool lower = x < a + 1;
  const auto log_tail = [&](double s) { return lower ? log_gammainc_series(s, x) : log_gammaincc_fraction(s, x); };
  const double step = 1e-5 * std::min(a, std::sqrt(a));
  const double slope = (log_tail(a + step) - log_tail(a - step)) / (2 * step);
  const double log_density = (a - 1) * std::log(x) - x - std::lgamma(a);
  const double tail_over_density = std::exp(log_tail(a) - log_density);
  return lower ? -tail_over_density * slope : tail_over_density * slope;
}

// Direct below 4; above, the continued fraction
// erfcx(x) = 1 / (sqrt(pi) (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...))))).
double erfcx(double x) {
  if (std::isnan(x)) return x;
  if (x < 0) return x < -26.7 ? kInf : 2 * std::exp(x * x) - erfcx(-x);
  if (x < 4) return std::exp(x * x) * std::erfc(x);
  if (std::isinf(x)) return 0;
  double f = x;
  for (int k = 120; k >= 1; --k) f = x + (k / 2.0) / f;
  return 1 / (std::sqrt(kPi) * f);
}

double ndtr(double x) { return 0.5 * std::erfc(-x * M_SQRT1_2); }

double log_ndtr(double x) {
  if (x > 6) return std::log1p(-0.5 * std::erfc(x * M_SQRT1_2));
  if (x > -5) return std::log(0.5 * std::erfc(-x * M_SQRT1_2));
  const double t = -x * M_SQRT1_2;  // erfc(t) = erfcx(t) exp(-t^2), without underflow
  return std::log(0.5 * erfcx(t)) - t * t;
}

// Abramowitz & Stegun 26.2.23 as the first guess (error < 4.5e-4), then
// Halley steps on the residual computed in the tail the guess lies in.
double ndtri(double p) {
  if (std::isnan(p) || p < 0 || p > 1) return kNaN;
  if (p == 0) return -kInf;
  if (p == 1) return kInf;
  const bool lower = p < 0.5;
  const double q = lower ? p : 1 - p;
  const double t = std::sqrt(-2 * std::log(q));
  double x = t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
  if (lower) x = -x;
  for (int i = 0; i < 4; ++i) {
    // residual of the tail's CDF, divided by the density
    const double residual = lower ? 0.5 * std::erfc(-x * M_SQRT1_2) - p : -(0.5 * std::erfc(x * M_SQRT1_2) - (1 - p));
    const double u = residual * std::sqrt(2 * kPi) * std::exp(x * x / 2);
    x -= u / (1 + x * u / 2);
  }
  return x;
}

// At infinity J and Y have no limit value in torch or SciPy: NaN.
double bessel_j0(double x) {
  if (std::isinf(x)) return kNaN;
  return guarded([&] { return std::cyl_bessel_j(0.0, std::abs(x)); });
}

double bessel_j1(double x) {
  if (std::isinf(x)) return kNaN;
  const double v = guarded([&] { return std::cyl_bessel_j(1.0, std::abs(x)); });
  return x < 0 ? -v : v;
}

double bessel_y0(double x) {
  if (std::isnan(x) || x < 0) return kNaN;
  if (x == 0) return -kInf;
  if (std::isinf(x)) return kNaN;
  return guarded([&] { return std::cyl_neumann(0.0, x); });
}

double bessel_y1(double x) {
  if (std::isnan(x) || x < 0) return kNaN;
  if (x == 0) return -kInf;
  if (std::isinf(x)) return kNaN;
  return guarded([&] { return std::cyl_neumann(1.0, x); });
}

namespace {

// I_nu(t) exp(-t) for nu in {0, 1} and t >= 0, computed in T (float inputs
// need no double arithmetic), each range a polynomial evaluated by Horner's
// rule with coefficients fixed at compile time. Below kSwitch the power
// series (t/2)^nu sum_k (t^2/4)^k / (k! (k+nu)!), whose terms are all
// positive, in u = t^2 / kSwitch^2 (so that float's coefficients neither
// underflow nor overflow); above it the asymptotic series in w = 1 / (8t).
// The term counts cover T's precision over each range.
template <typename T>
struct ScaledBesselI {
  static constexpr bool kSingle = sizeof(T) == 4;
  static constexpr double kSwitch = kSingle ? 15 : 25;
  static constexpr int kSeriesTerms = kSingle ? 24 : 44;
  static constexpr int kAsymptoticTerms = kSingle ? 12 : 30;

  struct Coefficients {
    T series[2][kSeriesTerms + 1];
    T asymptotic[2][kAsymptoticTerms + 1];
  };

  static constexpr Coefficients make() {
    Coefficients c{};
    const double scale = kSwitch * kSwitch / 4;  // u = (t^2 / 4) / scale
    for (int nu = 0; nu < 2; ++nu) {
      double term = 1;  // scale^k / (k! (k + nu)!)
      for (int k = 0; k <= kSeriesTerms; ++k) {
        if (k > 0) term *= scale / (k * (k + nu));
        c.series[nu][k] = static_cast<T>(term);
      }
      term = 1;  // prod_j -(4 nu^2 - (2j - 1)^2) / j
      for (int k = 0; k <= kAsymptoticTerms; ++k) {
        if (k > 0) term *= -(4.0 * nu * nu - (2.0 * k - 1) * (2.0 * k - 1)) / k;
        c.asymptotic[nu][k] = static_cast<T>(term);
      }
    }
    return c;
  }
  static constexpr Coefficients kCoefficients = make();

  template <int N>
  static T horner(const T (&c)[N], T x) {
    T sum = c[N - 1];
    for (int k = N - 2; k >= 0; --k) sum = sum * x + c[k];
    return sum;
  }

  static T eval(int nu, T t) {
    if (t > static_cast<T>(kSwitch)) {
      const T sum = horner(kCoefficients.asymptotic[nu], T(1) / (T(8) * t));
      return sum / std::sqrt(static_cast<T>(2 * kPi) * t);
    }
    const T sum = horner(kCoefficients.series[nu], t * t * static_cast<T>(1 / (kSwitch * kSwitch)));
    return (nu ? sum * (t / 2) : sum) * std::exp(-t);
  }
};

template <typename T>
T scaled_bessel_i(int nu, T x) {
  if (std::isnan(x)) return x;
  const T t = std::abs(x);
  if (std::isinf(t)) return 0;
  const T v = ScaledBesselI<T>::eval(nu, t);
  return nu == 1 && x < 0 ? -v : v;
}

}  // namespace

double bessel_i0e(double x) { return scaled_bessel_i(0, x); }
float bessel_i0e(float x) { return scaled_bessel_i(0, x); }
double bessel_i1e(double x) { return scaled_bessel_i(1, x); }
float bessel_i1e(float x) { return scaled_bessel_i(1, x); }

// Past 700 exp(t) overflows (I_nu(t) > 1e302).
double bessel_i0(double x) {
  if (std::isnan(x)) return x;
  const double t = std::abs(x);
  return t > 700 ? kInf : ScaledBesselI<double>::eval(0, t) * std::exp(t);
}

double bessel_i1(double x) {
  if (std::isnan(x)) return x;
  const double t = std::abs(x);
  const double v = t > 700 ? kInf : ScaledBesselI<double>::eval(1, t) * std::exp(t);
  return x < 0 ? -v : v;
}

double bessel_k0e(double x) {
  if (std::isnan(x) || x < 0) return kNaN;
  if (x == 0) return kInf;
  if (std::isinf(x)) return 0;
  return x > 600 ? scaled_k_asymptotic(0, x) : std::exp(x) * guarded([&] { return std::cyl_bessel_k(0.0, x); });
}

double bessel_k1e(double x) {
  if (std::isnan(x) || x < 0) return kNaN;
  if (x == 0) return kInf;
  if (std::isinf(x)) return 0;
  return x > 600 ? scaled_k_asymptotic(1, x) : std::exp(x) * guarded([&] { return std::cyl_bessel_k(1.0, x); });
}

double bessel_k0(double x) {
  if (x > 600) return std::isinf(x) ? 0.0 : scaled_k_asymptotic(0, x) * std::exp(-x);
  if (std::isnan(x) || x < 0) return kNaN;
  if (x == 0) return kInf;
  return guarded([&] { return std::cyl_bessel_k(0.0, x); });
}

double bessel_k1(double x) {
  if (x > 600) return std::isinf(x) ? 0.0 : scaled_k_asymptotic(1, x) * std::exp(-x);
  if (std::isnan(x) || x < 0) return kNaN;
  if (x == 0) return kInf;
  return guarded([&] { return std::cyl_bessel_k(1.0, x); });
}

double spherical_bessel_j0(double x) {
  if (std::isinf(x)) return 0;
  if (std::abs(x) < 1e-4) return 1 - x * x / 6;
  return std::sin(x) / x;
}

// Through Bessel functions of order 1/3 (Abramowitz & Stegun 10.4.14-15):
// Ai(x) = sqrt(x/3) K_1/3(z) / pi, and for -x, with J_-1/3 written through
// J_1/3 and Y_1/3, Ai(-x) = sqrt(x) (J_1/3(z) / 2 - Y_1/3(z) / (2 sqrt 3)),
// where z = 2/3 x^(3/2).
double airy_ai(double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return 0;
  if (x == 0) return 0.355028053887817239260063186004;
  const double t = std::abs(x);
  const double z = 2.0 / 3.0 * t * std::sqrt(t);
  if (x > 0) {
    if (z > 700) return 0;
    return std::sqrt(x / 3) / kPi * guarded([&] { return std::cyl_bessel_k(1.0 / 3, z); });
  }
  const double j = guarded([&] { return std::cyl_bessel_j(1.0 / 3, z); });
  const double y = guarded([&] { return std::cyl_neumann(1.0 / 3, z); });
  return std::sqrt(t) * (0.5 * j - y / (2 * std::sqrt(3.0)));
}

double polynomial(Polynomial kind, double x, int64_t n) {
  if (n < 0) return 0;
  if (n == 0) return 1;
  if (std::isnan(x)) return x;
  // Chebyshev polynomials of high degree inside [-1, 1]: the angle forms.
  if (kind == Polynomial::ChebyshevT && std::abs(x) < 1 && n > 6) return std::cos(n * std::acos(x));
  if (kind == Polynomial::ChebyshevU && std::abs(x) < 1 && n > 8) {
    const double theta = std::acos(x);
    if (std::sin(theta) != 0) return std::sin((n + 1) * theta) / std::sin(theta);
  }
  double p0 = 1, p1 = 0;
  switch (kind) {
    case Polynomial::ChebyshevT: p1 = x; break;
    case Polynomial::ChebyshevU: p1 = 2 * x; break;
    case Polynomial::ChebyshevV: p1 = 2 * x - 1; break;
    case Polynomial::ChebyshevW: p1 = 2 * x + 1; break;
    case Polynomial::HermiteH: p1 = 2 * x; break;
    case Polynomial::HermiteHe: p1 = x; break;
    case Polynomial::LaguerreL: p1 = 1 - x; break;
    case Polynomial::LegendreP: p1 = x; break;
  }
  for (int64_t k = 1; k < n; ++k) {
    const double kd = static_cast<double>(k);
    double next = 0;
    switch (kind) {
      case Polynomial::ChebyshevT:
      case Polynomial::ChebyshevU:
      case Polynomial::ChebyshevV:
      case Polynomial::ChebyshevW: next = 2 * x * p1 - p0; break;
      case Polynomial::HermiteH: next = 2 * x * p1 - 2 * kd * p0; break;
      case Polynomial::HermiteHe: next = x * p1 - kd * p0; break;
      case Polynomial::LaguerreL: next = ((2 * kd + 1 - x) * p1 - kd * p0) / (kd + 1); break;
      case Polynomial::LegendreP: next = ((2 * kd + 1) * x * p1 - kd * p0) / (kd + 1); break;
    }
    p0 = p1;
    p1 = next;
  }
  return p1;
}

}  // namespace ember::native::special
