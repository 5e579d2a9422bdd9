import { defineCommand } from './define';

export const doctor = defineCommand({
  name: 'doctor',
  category: 'meta',
  group: 'Meta',
  description: 'Check the install (binary vs daemon version, Chromium launch, state permissions, stale state, port); a fix on each failing line. Starts no daemon',
  local: true,
  cliOnly: true, // it diagnoses the caller's binary and environment, not the daemon's
  async run() {
    const { runDoctor } = await import('../doctor'); // only `doctor` loads its checks
    return runDoctor();
  },
});
