import { createHmac } from 'node:crypto';

/**
 * An outbound-message event as Termii posts it to the account's webhook (its
 * delivery report), with `X-Termii-Signature`: the hex HMAC-SHA512 of the
 * body, keyed with the account's secret key.
 */
export function termiiDeliveryReport(input: { messageId: string; receiver: string; status: string; sentAt: string }, secretKey: string) {
  const raw = JSON.stringify({
    type: 'outbound',
    id: `req-${input.messageId}`,
    message_id: input.messageId,
    receiver: input.receiver,
    sender: 'Cowrie',
    message: 'Your verification code is [redacted by the stand-in].',
    sent_at: input.sentAt,
    cost: '3.9',
    status: input.status,
    channel: 'generic',
  });
  return { raw, signature: createHmac('sha512', secretKey).update(raw).digest('hex') };
}
