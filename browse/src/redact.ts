// Values that look like credentials never reach output: agents paste output into transcripts and logs.
const SECRET_NAME = /token|secret|key|passw|pwd|auth|session|sess_?id|sid\b|csrf|xsrf|jwt|bearer|credential|api[-_]?key/i;
const SECRET_VALUE = [/^eyJ[\w-]{8,}\./, /^sk-[\w-]{8,}/, /^gh[pousr]_\w{16,}/, /^AKIA[0-9A-Z]{12,}/, /^xox[abpr]-/, /^AIza[\w-]{20,}/];

export function looksSecret(name: string, value: string): boolean {
  return SECRET_NAME.test(name) || SECRET_VALUE.some((re) => re.test(value));
}

export function redactValue(name: string, value: string): string {
  return looksSecret(name, value) ? `[REDACTED — ${value.length} chars]` : value;
}
