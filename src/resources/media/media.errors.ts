import { defineAuthError, defineRestError, defineRestErrorWith } from '../../rest/errors.js';

export { PostInvalidId as AttachmentInvalidId } from '../post-errors.js';
export const UploadNoData = defineRestError('rest_upload_no_data', 'No data supplied.', 400);
export const UploadNoContentType = defineRestError('rest_upload_no_content_type', 'No Content-Type supplied.', 400);
export const UploadNoDisposition = defineRestError('rest_upload_no_content_disposition', 'No Content-Disposition supplied.', 400);
export const UploadInvalidDisposition = defineRestError(
  'rest_upload_invalid_disposition',
  'Invalid Content-Disposition supplied. Content-Disposition needs to be formatted as `attachment; filename="image.png"` or similar.',
  400,
);
export const UploadHashMismatch = defineRestError('rest_upload_hash_mismatch', 'Content hash did not match expected.', 412);
/** WordPress answers 500 for these; they are the client's file, so 400 (CONTRACT: 5xx is the service's fault). */
export const SideloadError = defineRestErrorWith('rest_upload_sideload_error', 400, (message: string) => message);
export const UploadUnknownError = defineRestErrorWith('rest_upload_unknown_error', 400, (message: string) => message);
export const UploadTooBig = defineRestErrorWith('rest_upload_file_too_big', 413, (limit: number) => `This file is too big. Files must be less than ${Math.floor(limit / 1024)} KB in size.`);
export const UploadNameTaken = defineRestError('rest_upload_name_taken', 'Another upload took this file name at the same moment; send the file again.', 409);
export const InvalidParentType = defineRestError('rest_invalid_param', 'Invalid parent type.', 400);
export const TrashNotSupported = defineRestError('rest_trash_not_supported', "The post does not support trashing. Set 'force=true' to delete.", 501);

export const CannotUploadToPost = defineAuthError('rest_cannot_edit', 'Sorry, you are not allowed to upload media to this post.');

export const NOT_ALLOWED_TYPE = 'Sorry, you are not allowed to upload this file type.';
export const NOT_PERMITTED = 'Sorry, this file type is not permitted for security reasons.';
export const EMPTY_FILE =
  'File is empty. Please upload something more substantial. This error could also be caused by uploads being disabled in your php.ini or by post_max_size being defined as smaller than upload_max_filesize in php.ini.';
export const NOT_AN_IMAGE = 'The uploaded file is not a valid image. Please try again.';
