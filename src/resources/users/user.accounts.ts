import { type Db } from 'mongodb';
import { type AccountLookup } from '../../auth/accounts.js';
import { applicationPasswordsCollection, usersCollection } from './user.model.js';

/** The users and application passwords collections, as the authenticator and sign-in sessions look accounts up. */
export function userAccounts(db: Db): AccountLookup {
  const users = usersCollection(db);
  const passwords = applicationPasswordsCollection(db);
  return {
    byLogin: (login) => users.findOne(login.includes('@') ? { email: login.toLowerCase() } : { username: login }),
    byId: (id) => users.findOne({ _id: id }),
    applicationPassword: (userId, hash) => passwords.findOne({ user: userId, hash }),
    async recordApplicationPasswordUse(id, at, ip) {
      await passwords.updateOne({ _id: id }, { $set: { last_used: at, last_ip: ip } });
    },
  };
}
