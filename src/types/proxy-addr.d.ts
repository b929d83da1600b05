// proxy-addr (Express's own parser of `trust proxy`) ships no types; this is the part the service uses.
declare module 'proxy-addr' {
  /** Compiles a list of trusted addresses, CIDR ranges and the names `loopback`, `linklocal`, `uniquelocal`; throws a TypeError for anything else. */
  export function compile(trusted: string | readonly string[]): (address: string, hop: number) => boolean;
}
