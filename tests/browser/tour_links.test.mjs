// The tour's links: #tour opens its first step, #tour/N step N, #tour/NAME a
// chapter's first step, each in a step container carrying data-tour-step.
// And a chapter in course material: a course page on another origin frames
// index.html?embed=1#tour/NAME; inside the frame, Back and Next stay within
// that chapter. The expected steps come from the tour's own chapter list.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { serve } from '../../scripts/serve.mjs';
import { CHAPTERS, STEPS, chapterRange } from '../../web/tour/chapters.mjs';
import { SITE, launchBrowser, openPage } from './browser.mjs';

let files; // the built site
let course; // a course page, on another origin
let courseDir;
let browser;

before(async () => {
  courseDir = await mkdtemp(join(tmpdir(), 'minimind-tour-course-'));
  files = await serve(SITE);
  course = await serve(courseDir);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await Promise.all([files?.close(), course?.close()]);
  if (courseDir) await rm(courseDir, { recursive: true, force: true });
});

// The step shown in `frame` (a page or a frame) once its state is in: {n, chapter}.
async function shownStep(frame, n) {
  await frame
    .waitForFunction(
      (want) => {
        const steps = document.querySelectorAll('[data-tour-step]');
        return steps.length === 1 && steps[0].dataset.tourStep === String(want) && steps[0].dataset.tourReady === 'true';
      },
      n,
      { timeout: 60000 },
    )
    .catch(async (error) => {
      // Where it stopped: the step, what it set and what the store holds.
      const step = await frame.evaluate(() => ({
        ...document.querySelector('[data-tour-step]')?.dataset,
        pending: document.body.dataset.pendingRequests,
      }));
      throw new Error(`step ${n} not reached: ${JSON.stringify(step)}`, { cause: error });
    });
  return frame.evaluate(() => {
    const step = document.querySelector('[data-tour-step]');
    return { n: Number(step.dataset.tourStep), chapter: step.dataset.tourChapter, hash: location.hash };
  });
}

const LINKS = [
  ['#tour', 1],
  ['#tour/5', 5],
  [`#tour/${STEPS.length}`, STEPS.length],
  ['#tour/heads', chapterRange('heads')[0] + 1],
  ['#tour/switch-off', chapterRange('switch-off')[0] + 1],
];

test('#tour, #tour/N and #tour/NAME open their step; a link to no step opens no tour', async () => {
  const { page, errors } = await openPage(browser.context);
  for (const [hash, n] of LINKS) {
    await page.goto(`${files.url}index.html?lang=en${hash}`);
    const shown = await shownStep(page, n);
    assert.equal(shown.n, n, hash);
    assert.equal(shown.chapter, STEPS[n - 1].chapter, hash);
  }
  // Step 0, a step past the end and an unknown chapter are not tour links: the playground opens as it is.
  for (const [k, hash] of ['#tour/0', `#tour/${STEPS.length + 1}`, '#tour/nowhere'].entries()) {
    await page.goto(`${files.url}index.html?lang=en&page=${k}${hash}`); // a new document each time
    await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
    assert.equal(await page.locator('#tour').isHidden(), true, hash);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

for (const chapter of ['mask', 'forward']) {
  test(`?embed=1#tour/${chapter} in a course page on another origin: Next and Back stay within the chapter`, async () => {
    const [first, last] = chapterRange(chapter);
    const src = `${files.url}index.html?embed=1&lang=en#tour/${chapter}`;
    await writeFile(
      join(courseDir, `${chapter}.html`),
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Course</title><link rel="icon" href="data:,"></head>
<body><h1>A course page</h1><iframe id="tour" src="${src}" width="900" height="700" style="border:0" title="tour"></iframe></body></html>`,
    );
    assert.notEqual(new URL(course.url).origin, new URL(files.url).origin, 'two origins');
    const { page, errors } = await openPage(browser.context, `${course.url}${chapter}.html`);
    const frame = await (await page.waitForSelector('iframe#tour')).contentFrame();
    const next = frame.getByRole('button', { name: 'Next', exact: true });
    const back = frame.getByRole('button', { name: 'Back', exact: true });
    let shown = await shownStep(frame, first + 1);
    assert.equal(shown.chapter, chapter);
    assert.ok(await back.isDisabled(), 'Back at the chapter’s first step goes nowhere');
    const seen = [shown.n];
    while (!(await next.isDisabled())) {
      await next.click();
      shown = await shownStep(frame, seen.at(-1) + 1);
      assert.equal(shown.chapter, chapter, `step ${shown.n}`);
      seen.push(shown.n);
    }
    assert.deepEqual(
      seen,
      Array.from({ length: last - first + 1 }, (_, k) => first + 1 + k),
    );
    // The arrow keys too: right at the chapter's end stays, left goes back one.
    await frame.locator('[data-tour-step]').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowLeft');
    shown = await shownStep(frame, last);
    assert.equal(shown.chapter, chapter);
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('the gallery offers every chapter’s link and iframe; the embed dialog the step’s and the chapter’s', async () => {
  const { page, errors } = await openPage(browser.context);
  await page.goto(`${files.url}gallery.html?lang=en`);
  const chapters = await page.evaluate(() =>
    [...document.querySelectorAll('[data-tour-chapter]')].map((li) => ({
      slug: li.dataset.tourChapter,
      href: li.querySelector('a').href,
      code: li.querySelector('code').textContent,
    })),
  );
  assert.deepEqual(
    chapters.map((c) => c.slug),
    CHAPTERS.map((c) => c.slug),
  );
  for (const c of chapters) {
    assert.equal(new URL(c.href).hash, `#tour/${c.slug}`);
    assert.ok(c.code.includes(`index.html?embed=1#tour/${c.slug}`), c.code);
  }
  // The gallery's link opens the chapter's first step.
  await page.goto(chapters[2].href);
  await shownStep(page, chapterRange(chapters[2].slug)[0] + 1);
  // In the playground, on step 5 of the tour: the dialog links step 5 and its chapter, and frames the chapter.
  await page.goto(`${files.url}index.html?lang=en&page=dialog#tour/5`);
  await shownStep(page, 5);
  await page.click('#embed-code');
  const dialog = await page.evaluate(() => ({
    links: [...document.querySelectorAll('#embed-tour a')].map((a) => new URL(a.href).hash),
    code: document.getElementById('embed-tour-iframe').value,
    shown: !document.getElementById('embed-tour').hidden,
  }));
  const chapter = STEPS[4].chapter;
  assert.deepEqual(dialog, { links: ['#tour/5', `#tour/${chapter}`], code: dialog.code, shown: true });
  assert.ok(dialog.code.includes(`?embed=1#tour/${chapter}`), dialog.code);
  assert.deepEqual(errors, []);
  await page.close();
});
