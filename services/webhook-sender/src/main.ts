// First: tracing starts before what it instruments is loaded.
import './tracing';
import { runWorkerService } from '@cowrie/service-kit';
import { startWebhookWorker } from './worker';

runWorkerService('webhook-sender', startWebhookWorker, (config) => config.WEBHOOK_WORKER_METRICS_PORT);
