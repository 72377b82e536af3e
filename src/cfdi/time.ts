import { catalogEntry } from '../catalogs/index.ts';

/** c_CodigoPostal's time-zone description → IANA zone (tzdata knows each one's current offsets and DST). */
const ZONES: Record<string, string> = {
  'Tiempo del Centro': 'America/Mexico_City',
  'Tiempo del Centro en Frontera': 'America/Matamoros',
  'Tiempo del Pacífico': 'America/Mazatlan',
  'Tiempo del Pacífico en Frontera': 'America/Ciudad_Juarez',
  'Tiempo del Pacífico Sonora': 'America/Hermosillo',
  'Tiempo del Noroeste en Frontera': 'America/Tijuana',
  'Tiempo del Sureste': 'America/Cancun',
};

export const timeZoneOf = (codigoPostal: string): string => ZONES[catalogEntry('c_CodigoPostal', codigoPostal)?.huso_horario ?? ''] ?? 'America/Mexico_City';

const formatters = new Map<string, Intl.DateTimeFormat>();

/** `YYYY-MM-DDThh:mm:ss` wall-clock time at a postal code (SAT t_FechaH: no zone, no fraction). */
export function localDateTime(instant: Date, codigoPostal: string): string {
  return wallClock(instant, timeZoneOf(codigoPostal));
}

export function wallClock(instant: Date, timeZone: string): string {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, f);
  }
  const p = Object.fromEntries(f.formatToParts(instant).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}`;
}

/** The instant at which the wall clock in `timeZone` reads `local` (YYYY-MM-DDThh:mm:ss). */
export function zonedToUtc(local: string, timeZone: string): Date {
  const asUtc = Date.parse(`${local}Z`);
  // Offset of the zone around that moment; a second pass settles DST edges.
  let guess = asUtc;
  for (let i = 0; i < 2; i++) guess = asUtc - (Date.parse(`${wallClock(new Date(guess), timeZone)}Z`) - guess);
  return new Date(guess);
}
