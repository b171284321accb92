// First: tracing starts before what it instruments is loaded.
import './tracing';
import { runWorkerService } from '@cowrie/service-kit';
import { startPayoutWorker } from './worker';

runWorkerService('payout-worker', startPayoutWorker, (config) => config.PAYOUT_WORKER_METRICS_PORT);
