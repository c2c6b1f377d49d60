"""A training step fed by a DataLoader whose workers use the spawn start method
(the default on macOS and Windows): the dataset class lives in this script."""
import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        x = torch.tensor([float(i)])
        return x, 3 * x + 1


if __name__ == "__main__":
    torch.manual_seed(0)
    model = torch.nn.Linear(1, 1)
    loader = DataLoader(Squares(), batch_size=4, num_workers=2, multiprocessing_context="spawn")
    for x, y in loader:
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
    print("weight.grad", repr(model.weight.grad.item()), "bias.grad", repr(model.bias.grad.item()))
