import { runWorkerService } from '@cowrie/service-kit';
import { startPayoutWorker } from './worker';

runWorkerService('payout-worker', startPayoutWorker, (config) => config.PAYOUT_WORKER_METRICS_PORT);
