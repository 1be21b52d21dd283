import { render, screen } from '@testing-library/react';
import { lazy, Suspense } from 'react';
import { loadOnce } from './loadOnce';

/** What PageBlueprint's page does on each render (ExtensionBoundary.lazy): a new React.lazy around the loader. */
function renderAsPageBlueprint(loader: () => Promise<JSX.Element>) {
  const Content = lazy(() =>
    loader().then(element => ({ default: () => element })),
  );
  return render(
    <Suspense fallback={<p>loading</p>}>
      <Content />
    </Suspense>,
  );
}

describe('loadOnce', () => {
  it('once loaded, a new React.lazy around it renders without suspending (no re-render loop on navigation)', async () => {
    const loader = loadOnce(async () => <p>the page</p>);
    await loader();
    renderAsPageBlueprint(loader);
    expect(screen.getByText('the page')).toBeInTheDocument();
    expect(screen.queryByText('loading')).not.toBeInTheDocument();
  });

  it('loads once, and again after a failed load', async () => {
    const load = jest
      .fn<Promise<string>, []>()
      .mockRejectedValueOnce(new Error('chunk failed'))
      .mockResolvedValue('module');
    const loader = loadOnce(load);
    await expect(loader()).rejects.toThrow('chunk failed');
    expect(await loader()).toBe('module');
    expect(await loader()).toBe('module');
    expect(await loader().then(m => `${m}!`)).toBe('module!');
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('after the load, passes on what a callback returns or throws as a promise does', async () => {
    const loader = loadOnce(async () => 1);
    await loader();
    await expect(loader().then(async n => n + 1)).resolves.toBe(2);
    await expect(
      loader().then(() => {
        throw new Error('in the callback');
      }),
    ).rejects.toThrow('in the callback');
    await expect(loader().finally(() => {})).resolves.toBe(1);
  });
});
