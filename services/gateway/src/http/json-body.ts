import express, { type Request, type RequestHandler } from 'express';
import { isSafeNumber, parse as parseLossless } from 'lossless-json';
import { AppError, JsonNumberText } from '@cowrie/core';

// A number literal a double may not hold exactly: 16 or more significant
// digits, or an exponent. Tested on the raw text, strings included: a match
// only sends the body down the exact path, which is right either way.
const MAYBE_INEXACT_NUMBER = /\d(?:\.?\d){15}|\d[eE]/;

/** Lossless JSON: a number a double holds exactly is a number, any other a JsonNumberText with its digits. Throws on a key given twice. */
const parseLosslessly = (text: string): unknown =>
  parseLossless(text, undefined, (digits) => (isSafeNumber(digits) ? Number(digits) : new JsonNumberText(digits)));

/**
 * JSON text read as /v1 bodies are (jsonBody): JSON.parse, unless the text
 * holds a number a double may not hold exactly, then losslessly, so the amount
 * rule sees the digits sent. For bodies read as raw bytes (the rail
 * notifications, whose signature covers those bytes). Throws on text that is
 * not JSON, or, read losslessly, that gives a key twice.
 */
export function parseExactJson(text: string): unknown {
  return MAYBE_INEXACT_NUMBER.test(text) ? parseLosslessly(text) : JSON.parse(text);
}

/**
 * JSON request bodies, read without losing a digit. JSON.parse (fast, and
 * what nearly every body needs) reads numbers as doubles, so
 * `999999999999999.999999` would arrive as `1e15` and `1.0000000000000001` as
 * `1`. A body whose text holds a number a double may not hold exactly is
 * parsed again losslessly: each such number becomes a JsonNumberText with the
 * client's digits, which the amount rule reads exactly and every other
 * numeric field refuses as not a number. Limits, content types and the
 * 400/413 answers for broken or huge bodies are express.json's.
 */
export function jsonBody(options: { limit: string | number }): RequestHandler {
  const exactText = new WeakMap<Request, Buffer>();
  const parse = express.json({
    limit: options.limit,
    strict: true,
    type: ['application/json', 'application/*+json'],
    verify: (req, _res, buf) => {
      // latin1 is a plain byte copy: enough to find ASCII digits, cheaper than decoding.
      if (MAYBE_INEXACT_NUMBER.test(buf.toString('latin1'))) exactText.set(req as Request, buf);
    },
  });
  // One handler (one router step): express.json, then the exact reading where it is needed.
  return (req, res, next) =>
    parse(req, res, (err?: unknown) => {
      if (err) return next(err);
      const raw = exactText.get(req);
      if (raw === undefined) return next();
      try {
        req.body = parseLosslessly(raw.toString('utf8'));
      } catch (err) {
        // JSON.parse took it, so this is what only the exact reading refuses (a key given twice).
        return next(new AppError('invalid_request', `The request body could not be read exactly: ${(err as Error).message}`, { details: { field: 'body' } }));
      }
      next();
    });
}
