/**
 * A stored user as authentication reads it. The users resource owns the record and gives the
 * authenticator and the sessions a lookup of it (as Ghost's service factories are given their
 * models), so that authentication imports no resource.
 */
export interface Account {
  readonly _id: number;
  readonly passwordHash: string;
  readonly roles: readonly string[];
  readonly name: string;
  readonly slug: string;
}

/** An application password as its check needs it: never the password, only when and where it was last used. */
export interface ApplicationPasswordUse {
  readonly _id: string;
  readonly last_used: Date | null;
  readonly last_ip: string | null;
}

export interface AccountLookup {
  /** The account a login names: an email address when it holds an `@`, else a username. */
  byLogin(login: string): Promise<Account | null>;
  byId(id: number): Promise<Account | null>;
  /** The user's application password with this keyed hash. */
  applicationPassword(userId: number, hash: string): Promise<ApplicationPasswordUse | null>;
  recordApplicationPasswordUse(id: string, at: Date, ip: string): Promise<void>;
}
