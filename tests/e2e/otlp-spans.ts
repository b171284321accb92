// Reads the spans of OTLP/HTTP trace exports as a collector receives them
// (POST /v1/traces): `application/json` (OTLP/JSON: ids in hex) or
// `application/x-protobuf` (ExportTraceServiceRequest, read here from the
// protobuf wire format: only the fields the tests look at).
import type { ReceivedRequest } from '@cowrie/testing';

export type SpanValue = string | number | boolean;

export interface ReceivedSpan {
  /** The resource's `service.name`. */
  service: string;
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, SpanValue>;
  /** How the export carrying it was encoded. */
  protocol: 'http/json' | 'http/protobuf';
}

/** The spans of every trace export among `requests`. */
export function spansOf(requests: ReceivedRequest[]): ReceivedSpan[] {
  return requests
    .filter((r) => r.method === 'POST' && r.path === '/v1/traces')
    .flatMap((r) => (String(r.headers['content-type']).startsWith('application/json') ? fromJson(r.rawBody) : fromProtobuf(r.rawBody)));
}

// ---- OTLP/JSON

interface JsonKeyValue {
  key: string;
  value: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, SpanValue> {
  const out: Record<string, SpanValue> = {};
  for (const { key, value } of list ?? []) {
    const v = value.stringValue ?? value.boolValue ?? value.doubleValue ?? (value.intValue === undefined ? undefined : Number(value.intValue));
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** OTLP/JSON carries ids as hex; tolerate base64 as well. */
const jsonId = (id: string | undefined) => (!id ? '' : /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex'));

function fromJson(body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString('utf8')) as {
    resourceSpans?: Array<{
      resource?: { attributes?: JsonKeyValue[] };
      scopeSpans?: Array<{
        spans?: Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: JsonKeyValue[] }>;
      }>;
    }>;
  };
  return (request.resourceSpans ?? []).flatMap((rs) => {
    const service = String(jsonAttributes(rs.resource?.attributes)['service.name'] ?? '');
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        service,
        traceId: jsonId(s.traceId),
        spanId: jsonId(s.spanId),
        parentSpanId: jsonId(s.parentSpanId),
        name: s.name,
        kind: s.kind,
        attributes: jsonAttributes(s.attributes),
        protocol: 'http/json' as const,
      })),
    );
  });
}

// ---- OTLP protobuf (opentelemetry/proto/collector/trace/v1)

type Field = { no: number; varint?: bigint; bytes?: Buffer; fixed64?: Buffer };

/** The fields of one protobuf message, in order. */
function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  const varint = () => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buf[at++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return result;
      shift += 7n;
    }
  };
  while (at < buf.length) {
    const tag = Number(varint());
    const no = tag >>> 3;
    const wire = tag & 7;
    if (wire === 0) out.push({ no, varint: varint() });
    else if (wire === 1) {
      out.push({ no, fixed64: buf.subarray(at, at + 8) });
      at += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      out.push({ no, bytes: buf.subarray(at, at + length) });
      at += length;
    } else if (wire === 5) at += 4;
    else throw new Error(`unexpected protobuf wire type ${wire}`);
  }
  return out;
}

const all = (list: Field[], no: number) => list.filter((f) => f.no === no);
const bytesOf = (list: Field[], no: number) => list.find((f) => f.no === no)?.bytes;

/** KeyValue { key = 1; AnyValue value = 2 }, AnyValue { string 1, bool 2, int 3, double 4 }. */
function protobufAttributes(list: Field[]): Record<string, SpanValue> {
  const out: Record<string, SpanValue> = {};
  for (const kv of list) {
    const parts = fields(kv.bytes!);
    const key = bytesOf(parts, 1)?.toString('utf8') ?? '';
    const value = fields(bytesOf(parts, 2) ?? Buffer.alloc(0))[0];
    if (!value) continue;
    if (value.no === 1) out[key] = value.bytes!.toString('utf8');
    else if (value.no === 2) out[key] = value.varint === 1n;
    else if (value.no === 3) out[key] = Number(BigInt.asIntN(64, value.varint!));
    else if (value.no === 4) out[key] = value.fixed64!.readDoubleLE(0);
  }
  return out;
}

function fromProtobuf(body: Buffer): ReceivedSpan[] {
  // ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1 }
  return all(fields(body), 1).flatMap((rsField) => {
    // ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2 }, Resource { repeated KeyValue attributes = 1 }
    const rs = fields(rsField.bytes!);
    const resource = fields(bytesOf(rs, 1) ?? Buffer.alloc(0));
    const service = String(protobufAttributes(all(resource, 1))['service.name'] ?? '');
    // ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2 }
    return all(rs, 2).flatMap((ssField) =>
      all(fields(ssField.bytes!), 2).map((spanField) => {
        // Span { trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, attributes 9 }
        const span = fields(spanField.bytes!);
        return {
          service,
          traceId: bytesOf(span, 1)?.toString('hex') ?? '',
          spanId: bytesOf(span, 2)?.toString('hex') ?? '',
          parentSpanId: bytesOf(span, 4)?.toString('hex') ?? '',
          name: bytesOf(span, 5)?.toString('utf8') ?? '',
          kind: Number(span.find((f) => f.no === 6)?.varint ?? 0n),
          attributes: protobufAttributes(all(span, 9)),
          protocol: 'http/protobuf' as const,
        };
      }),
    );
  });
}
