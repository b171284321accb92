import { CowrieClient, CowrieApiError } from '@cowrie/sdk';

export async function quickstart(baseUrl: string, apiKey: string) {
  const cowrie = new CowrieClient({ baseUrl, apiKey });

  // Which deposit channels this deployment has live.
  const channels = await cowrie.channels.list();
  const live = channels.filter((c) => c.status === 'live').map((c) => c.id);

  // A one-off bank account for a payer to send 5,000 NGN into.
  const deposit = await cowrie.deposits.create({ channel: 'collection_va', amount: 5000 });

  // Pay a bank account: resolve the name first, then transfer. Retries reuse
  // one Idempotency-Key, so a lost response never pays twice.
  const [bank] = await cowrie.banks.list();
  const account = await cowrie.banks.resolve({ account_number: '0123456789', bank_code: bank!.bankCode });
  const transfer = await cowrie.transfers.create({
    currency: 'NGN',
    amount: 1500,
    account_number: account.accountNumber,
    bank_code: account.bankCode,
    account_name: account.accountName,
  });

  // Errors carry the API's code and request id.
  try {
    await cowrie.verifications.get('00000000-0000-4000-8000-000000000000');
  } catch (err) {
    if (!(err instanceof CowrieApiError) || err.code !== 'not_found') throw err;
  }
  return { live, deposit, transfer };
}

// npx tsx packages/sdk/examples/quickstart.ts (with COWRIE_URL and COWRIE_API_KEY set)
if (require.main === module) {
  quickstart(process.env.COWRIE_URL ?? 'http://127.0.0.1:3000', process.env.COWRIE_API_KEY ?? '').then(
    (result) => console.log(JSON.stringify(result, null, 2)),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
