"""Sequence-to-sequence learning the way the translation tutorial writes it,
on a toy task (reverse a digit string): index tensors padded to a fixed
length, TensorDataset + RandomSampler + DataLoader, a GRU encoder, a GRU
decoder with additive (Bahdanau) attention over the encoder outputs
(bmm, softmax, cat), teacher forcing decided per batch with random.random,
greedy decoding with topk(1) and detach, NLLLoss on log_softmax outputs,
two Adam optimizers, and exact-match accuracy on held-out strings.
"""
import random
import time

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
from ember import optim
from ember.utils.data import DataLoader, RandomSampler, TensorDataset

random.seed(0)
torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
SOS_token, EOS_token = 0, 1
MAX_LENGTH = 7  # up to 6 digits and EOS
VOCAB = 12  # SOS, EOS, digits 2..11


def make_pairs(n):
    pairs = []
    for _ in range(n):
        digits = [random.randint(2, 11) for _ in range(random.randint(2, MAX_LENGTH - 1))]
        pairs.append((digits, digits[::-1]))
    return pairs


def to_tensors(pairs):
    n = len(pairs)
    input_ids = torch.zeros((n, MAX_LENGTH), dtype=torch.long)
    target_ids = torch.zeros((n, MAX_LENGTH), dtype=torch.long)
    for idx, (inp, tgt) in enumerate(pairs):
        input_ids[idx, :len(inp) + 1] = torch.tensor(inp + [EOS_token], dtype=torch.long)
        target_ids[idx, :len(tgt) + 1] = torch.tensor(tgt + [EOS_token], dtype=torch.long)
    return input_ids, target_ids


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size):
        super(EncoderRNN, self).__init__()
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)

    def forward(self, input):
        embedded = self.embedding(input)
        output, hidden = self.gru(embedded)
        return output, hidden


class BahdanauAttention(nn.Module):
    def __init__(self, hidden_size):
        super(BahdanauAttention, self).__init__()
        self.Wa = nn.Linear(hidden_size, hidden_size)
        self.Ua = nn.Linear(hidden_size, hidden_size)
        self.Va = nn.Linear(hidden_size, 1)

    def forward(self, query, keys):
        scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys)))
        scores = scores.squeeze(2).unsqueeze(1)
        weights = F.softmax(scores, dim=-1)
        context = torch.bmm(weights, keys)
        return context, weights


class AttnDecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size):
        super(AttnDecoderRNN, self).__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.attention = BahdanauAttention(hidden_size)
        self.gru = nn.GRU(2 * hidden_size, hidden_size, batch_first=True)
        self.out = nn.Linear(hidden_size, output_size)

    def forward(self, encoder_outputs, encoder_hidden, target_tensor=None):
        batch_size = encoder_outputs.size(0)
        decoder_input = torch.empty(batch_size, 1, dtype=torch.long, device=device).fill_(SOS_token)
        decoder_hidden = encoder_hidden
        decoder_outputs, attentions = [], []
        for i in range(MAX_LENGTH):
            decoder_output, decoder_hidden, attn_weights = self.forward_step(decoder_input, decoder_hidden,
                                                                            encoder_outputs)
            decoder_outputs.append(decoder_output)
            attentions.append(attn_weights)
            if target_tensor is not None:
                decoder_input = target_tensor[:, i].unsqueeze(1)  # teacher forcing
            else:
                _, topi = decoder_output.topk(1)
                decoder_input = topi.squeeze(-1).detach()
        decoder_outputs = torch.cat(decoder_outputs, dim=1)
        decoder_outputs = F.log_softmax(decoder_outputs, dim=-1)
        attentions = torch.cat(attentions, dim=1)
        return decoder_outputs, decoder_hidden, attentions

    def forward_step(self, input, hidden, encoder_outputs):
        embedded = self.embedding(input)
        query = hidden.permute(1, 0, 2)
        context, attn_weights = self.attention(query, encoder_outputs)
        input_gru = torch.cat((embedded, context), dim=2)
        output, hidden = self.gru(input_gru, hidden)
        output = self.out(output)
        return output, hidden, attn_weights


def train_epoch(dataloader, encoder, decoder, encoder_optimizer, decoder_optimizer, criterion):
    total_loss = 0
    for data in dataloader:
        input_tensor, target_tensor = data
        encoder_optimizer.zero_grad()
        decoder_optimizer.zero_grad()
        encoder_outputs, encoder_hidden = encoder(input_tensor)
        teacher = target_tensor if random.random() < 0.5 else None
        decoder_outputs, _, _ = decoder(encoder_outputs, encoder_hidden, teacher)
        loss = criterion(decoder_outputs.view(-1, decoder_outputs.size(-1)), target_tensor.view(-1))
        loss.backward()
        encoder_optimizer.step()
        decoder_optimizer.step()
        total_loss += loss.item()
    return total_loss / len(dataloader)


def evaluate(encoder, decoder, input_tensor, target_tensor):
    with torch.no_grad():
        encoder_outputs, encoder_hidden = encoder(input_tensor)
        decoder_outputs, _, attentions = decoder(encoder_outputs, encoder_hidden)
        _, decoded_ids = decoder_outputs.topk(1)
        decoded_ids = decoded_ids.squeeze(-1)
    exact = (decoded_ids == target_tensor).all(dim=1).float().mean().item()
    return exact, attentions


hidden_size, batch_size = 32, 16
train_inputs, train_targets = to_tensors(make_pairs(192))
test_inputs, test_targets = to_tensors(make_pairs(48))
train_data = TensorDataset(train_inputs.to(device), train_targets.to(device))
train_dataloader = DataLoader(train_data, sampler=RandomSampler(train_data), batch_size=batch_size)
encoder = EncoderRNN(VOCAB, hidden_size).to(device)
decoder = AttnDecoderRNN(hidden_size, VOCAB).to(device)
encoder_optimizer = optim.Adam(encoder.parameters(), lr=0.01)
decoder_optimizer = optim.Adam(decoder.parameters(), lr=0.01)
criterion = nn.NLLLoss()
start = time.time()
for epoch in range(1, 7):
    loss = train_epoch(train_dataloader, encoder, decoder, encoder_optimizer, decoder_optimizer, criterion)
    if epoch % 2 == 0:
        print("epoch %d loss %.4f" % (epoch, loss))
accuracy, attentions = evaluate(encoder, decoder, test_inputs, test_targets)
print("held-out exact match %.4f, attention rows sum to %.4f" % (accuracy, attentions[0].sum(-1).mean().item()))
