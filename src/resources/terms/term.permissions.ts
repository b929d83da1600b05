import { can, type CapabilityTarget } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type Permission } from '../../rest/route.js';
import { findPostStatus } from '../../registry/post-statuses.js';
import { findPostType } from '../../registry/post-types.js';
import { PostInvalidIdParam } from '../post-errors.js';
import { type TermController } from './term.controller.js';
import {
  CannotCreateTerm,
  CannotDeleteTerm,
  CannotUpdateTerm,
  ForbiddenPostTerms,
  ForbiddenTaxonomyContext,
  ForbiddenTermContext,
  TermInvalid,
} from './term.errors.js';
import { type TermDoc } from './term.model.js';
import { findTaggedPost } from '../posts/index.js';
import { requestedTerm } from './term.queries.js';

export interface TermPermissions {
  canList: Permission<Deps>;
  canRead: Permission<Deps>;
  canCreate: Permission<Deps>;
  canUpdate: Permission<Deps>;
  canDelete: Permission<Deps>;
}

// The default category is left out of the target on purpose: WordPress's `delete_term` refuses it
// as a failed deletion (500) once the caller may delete terms at all, which the handler answers.
const termTarget = (ctl: TermController, doc: TermDoc): CapabilityTarget => ({
  term: { id: doc._id, caps: ctl.taxonomy.capabilities },
});

/** The permission callbacks of WordPress's terms controller, for one taxonomy. */
export function termPermissions(ctl: TermController): TermPermissions {
  const { taxonomy, extension } = ctl;
  const taxonomyTarget: CapabilityTarget = { taxonomy: taxonomy.capabilities };

  const existingTerm = async (req: RestRequest, deps: Deps): Promise<TermDoc> => {
    const doc = await requestedTerm(req, deps, taxonomy);
    if (!doc) throw new TermInvalid();
    return doc;
  };
  const extraRead = async (req: RestRequest, deps: Deps) => (extension.canRead ? extension.canRead(req, deps) : true);

  return {
    async canList(req, deps) {
      if (req.context === 'edit' && !can(req.user, 'edit_terms', taxonomyTarget)) throw new ForbiddenTaxonomyContext(req);
      if (req.params.post) await checkPostTermsReadable(ctl, req, deps, Number(req.params.post));
      return extraRead(req, deps);
    },
    async canRead(req, deps) {
      const doc = await existingTerm(req, deps);
      if (req.context === 'edit' && !can(req.user, 'edit_term', termTarget(ctl, doc))) throw new ForbiddenTermContext(req);
      return extraRead(req, deps);
    },
    canCreate(req) {
      // Anyone who may assign a flat taxonomy's terms may create them; hierarchical ones need `edit_terms`.
      const cap = taxonomy.hierarchical ? 'edit_terms' : 'assign_terms';
      if (!can(req.user, cap, taxonomyTarget)) throw new CannotCreateTerm(req);
      return true;
    },
    async canUpdate(req, deps) {
      const doc = await existingTerm(req, deps);
      if (!can(req.user, 'edit_term', termTarget(ctl, doc))) throw new CannotUpdateTerm(req);
      return true;
    },
    async canDelete(req, deps) {
      const doc = await existingTerm(req, deps);
      if (!can(req.user, 'delete_term', termTarget(ctl, doc))) throw new CannotDeleteTerm(req);
      return true;
    },
  };
}

/** `check_read_terms_permission_for_post`: the post exists, carries this taxonomy, and is public or readable by the caller. */
async function checkPostTermsReadable(ctl: TermController, req: RestRequest, deps: Deps, postId: number): Promise<void> {
  const post = await (ctl.extension.taggedObject?.(deps, postId) ?? findTaggedPost(deps, postId, ctl.taxonomy.slug));
  if (!post) throw new PostInvalidIdParam();
  const type = findPostType(post.type);
  if (!type || !ctl.taxonomy.types.includes(post.type)) throw new ForbiddenPostTerms(req);
  const isPublicStatus = findPostStatus(post.status)?.public ?? false;
  if (type.viewable && isPublicStatus) return;
  const target: CapabilityTarget = {
    post: { author: post.author, status: post.status, trashedFrom: post.trashedFrom, caps: type.caps, isPublicStatus },
  };
  if (!can(req.user, 'read_post', target)) throw new ForbiddenPostTerms(req);
}
