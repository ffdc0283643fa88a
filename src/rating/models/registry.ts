import { Type, type Static } from 'typebox';
import { commitment } from './commitment.ts';
import { flat } from './flat.ts';
import { graduated } from './graduated.ts';
import type { ChargeModel, PreparedBase } from './model.ts';
import { packageModel } from './package.ts';
import { percentage } from './percentage.ts';
import { perDay } from './perDay.ts';
import { perUnit } from './perUnit.ts';
import { perUnitPerDay } from './perUnitPerDay.ts';
import { totalRounding } from './totalRounding.ts';
import { volume } from './volume.ts';

/**
 * Every charge model, once. A new model is a module beside these (its schema,
 * check, preparation, rate and explanation; see model.ts) added to this list;
 * the template schema, checkTariff, prepareTariff, rateLine and the bill's
 * explanation read it from here.
 */
export const MODELS = [flat, perUnit, graduated, volume, packageModel, percentage, commitment, perDay, perUnitPerDay, totalRounding] as const;

type AnyModel = (typeof MODELS)[number];
export type ChargeModelName = AnyModel['name'];
export const CHARGE_MODELS = MODELS.map((m) => m.name) as readonly ChargeModelName[];

type ComponentOf<M> = M extends ChargeModel<string, infer S, infer _P, infer _T> ? Static<S> : never;
type PreparedOf<M> = M extends ChargeModel<string, infer _S, infer P, infer _T> ? P : never;
type TraceOf<M> = M extends ChargeModel<string, infer _S, infer _P, infer T> ? T : never;

/** A component of any model, told apart by `model`. */
export type Component = ComponentOf<AnyModel>;
export type PreparedComponent = PreparedOf<AnyModel>;
export type ModelTrace = TraceOf<AnyModel>;

/** What every model answers to, with its component types widened: for code that dispatches on `model`. */
export type Dispatch = ChargeModel<string, AnyModel['schema'], PreparedBase & { model: string }, { model: string }>;

const BY_NAME = new Map<string, Dispatch>(MODELS.map((m) => [m.name, m as unknown as Dispatch]));

/** The model of this name, or undefined for a name no model has. */
export function chargeModel(name: unknown): Dispatch | undefined {
  return typeof name === 'string' ? BY_NAME.get(name) : undefined;
}

/**
 * A component as a request sends it: one of the models, told apart by `model`
 * (an OpenAPI discriminator, so a generated client gets a union of the models).
 * The validator reads the discriminator first and checks the component against
 * that model's schema only: one wrong field answers one error about that field,
 * not one per model (which a plain anyOf gave: "must be flat", "tiers is not a
 * known field", ... for a bad basisDays). An unknown or missing model is one
 * error on `model`, worded by the error mapper.
 */
export const Component = Type.Unsafe<Component>({
  type: 'object',
  oneOf: MODELS.map((m) => m.schema),
  discriminator: { propertyName: 'model' },
  description: `A bill line's rule: one of the charge models (${CHARGE_MODELS.join(', ')}), each with its own fields`,
});

/**
 * A component as a template answers it (stored, so valid): any of the models,
 * the shape the response serializer picks a model's fields by.
 */
export const StoredComponent = Type.Unsafe<Component>(Type.Union(MODELS.map((m) => m.schema)));

/** The model's part of a bill line's explanation, in words, from its trace. */
export function explainModel(trace: ModelTrace): string {
  const model = chargeModel(trace.model);
  // Models are never removed, so a stored trace always has its model; should one be
  // missing, the explanation names it rather than failing the whole bill's answer.
  return model === undefined ? trace.model : model.explain(trace);
}
