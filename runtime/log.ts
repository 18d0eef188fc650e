/** The server's structured logger: JSON lines on stdout (pino), the level from the config. */
import { pino, type Logger, type LevelWithSilent } from 'pino';

export function createLogger(level: LevelWithSilent, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { component: 'shaper-gen' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ fd: 1, sync: false }),
  );
}
