import type { Bank } from './types';

/** The sandbox's bank list: real Nigerian bank codes (CBN/NIBSS), so clients can build against it. */
export const SANDBOX_BANKS: readonly Bank[] = [
  { bankCode: '044', bankName: 'Access Bank' },
  { bankCode: '023', bankName: 'Citibank Nigeria' },
  { bankCode: '050', bankName: 'Ecobank Nigeria' },
  { bankCode: '070', bankName: 'Fidelity Bank' },
  { bankCode: '011', bankName: 'First Bank of Nigeria' },
  { bankCode: '214', bankName: 'First City Monument Bank' },
  { bankCode: '058', bankName: 'Guaranty Trust Bank' },
  { bankCode: '030', bankName: 'Heritage Bank' },
  { bankCode: '301', bankName: 'Jaiz Bank' },
  { bankCode: '082', bankName: 'Keystone Bank' },
  { bankCode: '50211', bankName: 'Kuda Bank' },
  { bankCode: '999992', bankName: 'OPay' },
  { bankCode: '999991', bankName: 'PalmPay' },
  { bankCode: '076', bankName: 'Polaris Bank' },
  { bankCode: '101', bankName: 'Providus Bank' },
  { bankCode: '221', bankName: 'Stanbic IBTC Bank' },
  { bankCode: '068', bankName: 'Standard Chartered Bank' },
  { bankCode: '232', bankName: 'Sterling Bank' },
  { bankCode: '032', bankName: 'Union Bank of Nigeria' },
  { bankCode: '033', bankName: 'United Bank For Africa' },
  { bankCode: '215', bankName: 'Unity Bank' },
  { bankCode: '035', bankName: 'Wema Bank' },
  { bankCode: '057', bankName: 'Zenith Bank' },
];
