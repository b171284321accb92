import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
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

const templateRegex = (template: string) => new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);

/**
 * Checks real responses against the OpenAPI document: the status must be one
 * the operation documents, and the body must validate against its schema.
 * Remembers which (operation, status) pairs were seen.
 */
export class OpenApiContract {
  readonly ajv = addFormats(new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true }));
  private readonly validators = new Map<string, ValidateFunction>();
  readonly seen = new Set<string>();
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

  /** Compiles every schema in the document (request and response), proving it is valid JSON Schema 2020-12. */
  compileAll(): number {
    let count = 0;
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
      const schema = this.doc.paths[template]?.[method.toLowerCase()]?.responses?.[String(status)]?.content?.['application/json']?.schema;
      if (!schema) throw new Error(`${key} is not documented`);
      v = this.ajv.compile(resolveRefs(schema, this.doc) as Json);
      this.validators.set(key, v);
    }
    return v;
  }

  /** Throws unless `body` is a documented response of `method path` with `status`. */
  check(method: string, path: string, status: number, body: unknown): void {
    const template = this.templateOf(path);
    const validate = this.validator(method, template, status);
    if (!validate(body)) {
      throw new Error(
        `${method} ${path} → ${status} does not match the document: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body, null, 2).slice(0, 2000)}`,
      );
    }
    this.seen.add(`${method.toUpperCase()} ${template} ${status}`);
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
