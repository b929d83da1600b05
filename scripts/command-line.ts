// A script's command line: its options parsed by node:util's parseArgs, and its usage printed with
// whatever is wrong (exit code 2).
import { parseArgs, type ParseArgsConfig } from 'node:util';

export interface CommandLine<Options extends ParseArgsConfig['options']> {
  values: ReturnType<typeof parseArgs<{ options: Options }>>['values'];
  /** Prints `message` and the usage, and exits with 2. */
  usageError(message: string): never;
}

export function commandLine<const Options extends ParseArgsConfig['options']>(usage: string, options: Options): CommandLine<Options> {
  const usageError = (message: string): never => {
    console.error(message);
    console.error(usage);
    process.exit(2);
  };
  try {
    return { values: parseArgs({ options }).values, usageError };
  } catch (error) {
    return usageError((error as Error).message);
  }
}
