// What the page calls a model. Several panels name the same model (the run
// bar, the model panel, the matrix's state line, the exports), so the names
// are made in one place and read the same everywhere.
import { DEMO } from './demo_model.mjs';

/** The short name of the run bar and the model panel: the file, the preset, or the preset + custom. */
export function modelName(s, t) {
  return s.files ? s.files.name : s.config ? `${s.preset} + ${t('model.custom')}` : s.preset;
}

/** A model as exports and the matrix's state line name it: trained, random weights (and seed), or its file. */
export function modelTitle(m, t) {
  if (m.files) return m.files.name;
  if (m.preset === DEMO && !m.config) return t('model.trainedName');
  const name = m.config ? `${m.preset} + ${t('model.custom')}` : m.preset;
  return `${t('model.untrainedName', { name })}${t('export.seed', { seed: m.seed })}`;
}
