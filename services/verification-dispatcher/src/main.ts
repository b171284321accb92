// First: tracing starts before what it instruments is loaded.
import './tracing';
import { runWorkerService } from '@cowrie/service-kit';
import { startVerificationWorker } from './worker';

runWorkerService('verification-dispatcher', startVerificationWorker, (config) => config.VERIFICATION_WORKER_METRICS_PORT);
