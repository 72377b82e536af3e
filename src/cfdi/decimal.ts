/**
 * Exact decimal arithmetic for money: a bigint of units and a scale (digits after the point). No binary
 * floating point ever touches an amount; rounding is explicit (half away from zero, as CfdiUtils and Odoo do).
 */
export class Dec {
  private constructor(
    readonly units: bigint,
    readonly scale: number,
  ) {}

  static readonly ZERO = new Dec(0n, 0);

  /** Parses "123", "-1.50", "1e-3" or a JS number (via its shortest decimal representation). */
  static parse(value: string | number): Dec {
    const text = typeof value === 'number' ? numberToPlain(value) : value.trim();
    const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text);
    if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new RangeError(`not a decimal: ${String(value)}`);
    const frac = m[3] ?? '';
    const units = BigInt((m[2] || '0') + frac);
    return new Dec(m[1] === '-' ? -units : units, frac.length);
  }

  static of(value: Dec | string | number): Dec {
    return value instanceof Dec ? value : Dec.parse(value);
  }

  private aligned(other: Dec): [bigint, bigint, number] {
    const scale = Math.max(this.scale, other.scale);
    return [this.units * 10n ** BigInt(scale - this.scale), other.units * 10n ** BigInt(scale - other.scale), scale];
  }

  add(other: Dec): Dec {
    const [a, b, s] = this.aligned(other);
    return new Dec(a + b, s);
  }

  sub(other: Dec): Dec {
    const [a, b, s] = this.aligned(other);
    return new Dec(a - b, s);
  }

  mul(other: Dec): Dec {
    return new Dec(this.units * other.units, this.scale + other.scale);
  }

  /** this ÷ other, rounded half away from zero to `digits` decimals (exact: bigint long division). */
  div(other: Dec, digits: number): Dec {
    if (other.units === 0n) throw new RangeError('division by zero');
    // units/10^s ÷ (o/10^t) at scale d = units·10^(d+t) ÷ (o·10^s), one extra digit to round from.
    const num = this.units * 10n ** BigInt(digits + 1 + other.scale);
    const den = other.units * 10n ** BigInt(this.scale);
    return new Dec(num / den, digits + 1).round(digits);
  }

  cmp(other: Dec): -1 | 0 | 1 {
    const [a, b] = this.aligned(other);
    return a < b ? -1 : a > b ? 1 : 0;
  }

  isZero(): boolean {
    return this.units === 0n;
  }

  isNegative(): boolean {
    return this.units < 0n;
  }

  /** Digits after the point as written (trailing zeros included). */
  get decimals(): number {
    return this.scale;
  }

  private rescale(digits: number, mode: 'halfUp' | 'trunc' | 'ceil'): Dec {
    if (digits >= this.scale) return new Dec(this.units * 10n ** BigInt(digits - this.scale), digits);
    const factor = 10n ** BigInt(this.scale - digits);
    const negative = this.units < 0n;
    const abs = negative ? -this.units : this.units;
    let q = abs / factor;
    const r = abs % factor;
    if (mode === 'halfUp' && r * 2n >= factor) q += 1n;
    // Toward zero for trunc; away from minus infinity for ceil.
    if (mode === 'ceil' && r !== 0n && !negative) q += 1n;
    return new Dec(negative ? -q : q, digits);
  }

  /** Round half away from zero to `digits` decimals. */
  round(digits: number): Dec {
    return this.rescale(digits, 'halfUp');
  }

  trunc(digits: number): Dec {
    return this.rescale(digits, 'trunc');
  }

  ceil(digits: number): Dec {
    return this.rescale(digits, 'ceil');
  }

  /** Same value with trailing zeros removed, keeping at least `minDigits` decimals. */
  trim(minDigits = 0): Dec {
    let { units, scale } = this as Dec;
    while (scale > minDigits && units % 10n === 0n) {
      units /= 10n;
      scale--;
    }
    return scale < minDigits ? new Dec(units, scale).rescale(minDigits, 'trunc') : new Dec(units, scale);
  }

  /** Plain decimal text with exactly `scale` decimals: no exponent, no negative zero. */
  toString(): string {
    const negative = this.units < 0n;
    const digits = (negative ? -this.units : this.units).toString().padStart(this.scale + 1, '0');
    const int = digits.slice(0, digits.length - this.scale);
    const frac = digits.slice(digits.length - this.scale);
    return `${negative ? '-' : ''}${int}${this.scale ? `.${frac}` : ''}`;
  }

  /** For JSON responses: the nearest double of an exact decimal prints back as that decimal (≤ 15 digits). */
  toNumber(): number {
    return Number(this.toString());
  }
}

function numberToPlain(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`not a finite number: ${n}`);
  const text = String(n);
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!m) return text;
  const [, sign, int, frac = '', expText] = m;
  const exp = Number(expText);
  const digits = int! + frac;
  const point = int!.length + exp;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

export const sum = (values: Dec[]): Dec => values.reduce((a, b) => a.add(b), Dec.ZERO);
