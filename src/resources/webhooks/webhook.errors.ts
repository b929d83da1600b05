import { defineAuthError, defineRestError, defineRestErrorWith } from '../../rest/errors.js';

export const CannotManageWebhooks = defineAuthError('rest_cannot_manage_webhooks', 'Sorry, you are not allowed to manage webhooks.');
export const WebhookInvalidId = defineRestError('rest_webhook_invalid_id', 'Invalid webhook ID.', 404);
export const DeliveryInvalidId = defineRestError('rest_webhook_delivery_invalid_id', 'Invalid webhook delivery ID.', 404);
export const WebhookTargetRefused = defineRestErrorWith('rest_webhook_target_refused', 400, (reason: string) => `The webhook URL is refused: ${reason}.`);
export const WebhooksTrashNotSupported = defineRestError('rest_trash_not_supported', "Webhooks do not support trashing. Set 'force=true' to delete.", 501);
export const PingNotRedeliverable = defineRestError('rest_webhook_ping_not_redeliverable', 'A ping is not delivered again; send a new one.', 400);
