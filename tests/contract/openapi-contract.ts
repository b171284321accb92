import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import type { IncomingHttpHeaders } from 'node:http';
import type { Express } from 'express';

type Json = Record<string, any>;

/** Replaces `#/components/...` references with their targets (the document has no cycles). */
function resolveRefs(node: unknown, doc: Json): unknown {
  if (Array.isArray(node)) return node.map((n) => resolveRefs(n, doc));
  if (!node || typeof node !== 'object') return node;
  const ref = (node as Json).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/')) {
    const target = ref
      .slice(2)
      .split('/')
      .reduce<any>((acc, part) => acc?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
    return resolveRefs(target, doc);
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolveRefs(v, doc)]));
}

/** The headers the API sets itself, which the document must name on every answer that carries them. */
export const CHECKED_HEADERS = [
  'x-request-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'retry-after',
  'idempotent-replayed',
  'cache-control',
  'content-disposition',
];

const templateRegex = (template: string) => new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);

/**
 * Checks real responses against the OpenAPI document: the status must be one
 * the operation documents, and the body must validate against its schema.
 * Remembers which (operation, status) pairs were seen. Checks the webhook
 * requests Cowrie sends against the document's `webhooks` the same way.
 */
export class OpenApiContract {
  readonly ajv = addFormats(new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true }));
  private readonly validators = new Map<string, ValidateFunction>();
  readonly seen = new Set<string>();
  /** The CHECKED_HEADERS seen on answers checked with their headers. */
  readonly seenHeaders = new Set<string>();
  /** The webhook events checked by checkWebhook. */
  readonly seenWebhooks = new Set<string>();
  private readonly templates: { template: string; regex: RegExp }[];

  constructor(readonly doc: Json) {
    this.templates = Object.keys(doc.paths)
      // Literal paths before templated ones (/reserved-accounts before /reserved-accounts/{id}).
      .sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0))
      .map((template) => ({ template, regex: templateRegex(template) }));
  }

  templateOf(path: string): string {
    const found = this.templates.find((t) => t.regex.test(path.split('?')[0]!));
    if (!found) throw new Error(`${path} is not in the OpenAPI document`);
    return found.template;
  }

  /** The document's `node` with every `$ref` replaced by what it points to. */
  resolve(node: unknown): any {
    return resolveRefs(node, this.doc);
  }

  /** Compiles every schema in the document (requests, responses, webhooks and components), proving it is valid JSON Schema 2020-12. */
  compileAll(): number {
    let count = 0;
    for (const schema of Object.values<Json>(this.doc.components.schemas)) {
      this.ajv.compile(resolveRefs(schema, this.doc) as Json);
      count++;
    }
    for (const event of Object.keys(this.doc.webhooks)) {
      this.webhookValidator(event);
      count += 1 + this.webhookHeaders(event).length;
    }
    for (const [path, ops] of Object.entries<Json>(this.doc.paths)) {
      for (const [method, op] of Object.entries<Json>(ops)) {
        const body = op.requestBody?.content?.['application/json']?.schema;
        if (body) {
          this.ajv.compile(resolveRefs(body, this.doc) as Json);
          count++;
        }
        for (const p of op.parameters ?? []) {
          this.ajv.compile((resolveRefs(p, this.doc) as Json).schema);
          count++;
        }
        for (const status of Object.keys(op.responses)) {
          this.validator(method, path, Number(status));
          count++;
        }
      }
    }
    return count;
  }

  private validator(method: string, template: string, status: number): ValidateFunction {
    const key = `${method.toUpperCase()} ${template} ${status}`;
    let v = this.validators.get(key);
    if (!v) {
      const content = this.doc.paths[template]?.[method.toLowerCase()]?.responses?.[String(status)]?.content;
      // A CSV export's body is text (null as JSON): its columns are checked by its own tests.
      const schema = content?.['text/csv'] ? {} : content?.['application/json']?.schema;
      if (!schema) throw new Error(`${key} is not documented`);
      v = this.ajv.compile(resolveRefs(schema, this.doc) as Json);
      this.validators.set(key, v);
    }
    return v;
  }

  /**
   * Throws unless `body` is a documented response of `method path` with
   * `status`, and (given `headers`) each header of the API's own it carries
   * (CHECKED_HEADERS) is documented on that response.
   */
  check(method: string, path: string, status: number, body: unknown, headers?: Headers): void {
    const template = this.templateOf(path);
    const validate = this.validator(method, template, status);
    if (!validate(body)) {
      throw new Error(
        `${method} ${path} → ${status} does not match the document: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body, null, 2).slice(0, 2000)}`,
      );
    }
    if (headers) {
      const documented = Object.keys(this.doc.paths[template][method.toLowerCase()].responses[String(status)].headers ?? {}).map((h) => h.toLowerCase());
      const undocumented = CHECKED_HEADERS.filter((name) => headers.has(name) && !documented.includes(name));
      if (undocumented.length) throw new Error(`${method} ${path} → ${status} sends headers its answer does not document: ${undocumented.join(', ')}`);
      for (const name of CHECKED_HEADERS) if (headers.has(name)) this.seenHeaders.add(name);
    }
    this.seen.add(`${method.toUpperCase()} ${template} ${status}`);
  }

  private webhookHeaders(event: string): { name: string; required: boolean; validate: ValidateFunction }[] {
    const parameters: Json[] = this.resolve(this.doc.webhooks[event]?.post?.parameters ?? []);
    return parameters
      .filter((p) => p.in === 'header')
      .map((p) => ({ name: String(p.name), required: p.required === true, validate: this.ajv.compile(p.schema) }));
  }

  private webhookValidator(event: string): ValidateFunction {
    const key = `webhook ${event}`;
    let v = this.validators.get(key);
    if (!v) {
      const schema = this.doc.webhooks[event]?.post?.requestBody?.content?.['application/json']?.schema;
      if (!schema) throw new Error(`the ${event} event is not in the document's webhooks`);
      v = this.ajv.compile(resolveRefs(schema, this.doc) as Json);
      this.validators.set(key, v);
    }
    return v;
  }

  /**
   * Throws unless a request Cowrie sent to a webhook endpoint is a documented
   * webhook: its X-Cowrie-Event names one, its body matches that event's
   * schema, and its headers are the documented ones (each Cowrie or Standard
   * Webhooks header sent is documented, each required one is sent, and each
   * value matches).
   */
  checkWebhook(request: { headers: IncomingHttpHeaders; rawBody: Buffer }): void {
    const event = String(request.headers['x-cowrie-event']);
    const body: unknown = JSON.parse(request.rawBody.toString('utf8'));
    const validate = this.webhookValidator(event);
    if (!validate(body)) {
      throw new Error(
        `the ${event} webhook does not match the document: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body, null, 2).slice(0, 2000)}`,
      );
    }
    const headers = this.webhookHeaders(event);
    const documented = new Set(headers.map((h) => h.name.toLowerCase()));
    const undocumented = Object.keys(request.headers).filter((name) => /^(x-cowrie|webhook)-/.test(name) && !documented.has(name));
    if (undocumented.length) throw new Error(`the ${event} webhook sends headers the document does not name: ${undocumented.join(', ')}`);
    for (const header of headers) {
      const value = request.headers[header.name.toLowerCase()];
      if (value === undefined) {
        if (header.required) throw new Error(`the ${event} webhook was sent without its ${header.name} header`);
      } else if (!header.validate(value)) {
        throw new Error(`the ${event} webhook's ${header.name} header does not match the document: ${this.ajv.errorsText(header.validate.errors)}`);
      }
    }
    this.seenWebhooks.add(event);
  }

  /** Every documented success (2xx) response as `METHOD template status`. */
  documentedSuccesses(): string[] {
    const out: string[] = [];
    for (const [path, ops] of Object.entries<Json>(this.doc.paths)) {
      for (const [method, op] of Object.entries<Json>(ops)) {
        for (const status of Object.keys(op.responses)) if (status.startsWith('2')) out.push(`${method.toUpperCase()} ${path} ${status}`);
      }
    }
    return out.sort();
  }
}

/** Every route express has, as `METHOD /full/path`, walking mounted routers (those mounted on a plain path). */
export function expressRoutes(app: Express): string[] {
  const out: string[] = [];
  const walk = (stack: any[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const method of Object.keys(layer.route.methods)) if (method !== '_all') out.push(`${method.toUpperCase()} ${prefix}${layer.route.path}`);
      } else if (layer.handle?.stack && typeof layer.rawPath === 'string') {
        walk(layer.handle.stack, prefix + (layer.rawPath === '/' ? '' : layer.rawPath));
      }
    }
  };
  walk((app as any).router.stack, '');
  return [...new Set(out)].sort();
}
